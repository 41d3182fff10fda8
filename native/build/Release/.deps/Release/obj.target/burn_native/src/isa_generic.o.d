cmd_Release/obj.target/burn_native/src/isa_generic.o := g++ -o Release/obj.target/burn_native/src/isa_generic.o ../src/isa_generic.cc '-DNAPI_VERSION=8' '-DNODE_GYP_MODULE_NAME=burn_native' '-DUSING_UV_SHARED=1' '-DUSING_V8_SHARED=1' '-DV8_DEPRECATION_WARNINGS=1' '-D_GLIBCXX_USE_CXX11_ABI=1' '-D_FILE_OFFSET_BITS=64' '-D_LARGEFILE_SOURCE' '-D__STDC_FORMAT_MACROS' '-DOPENSSL_NO_PINSHARED' '-DOPENSSL_THREADS' '-DBUILDING_NODE_EXTENSION' -I/usr/include/node -I/usr/src -I/usr/deps/openssl/config -I/usr/deps/openssl/openssl/include -I/usr/deps/uv/include -I/usr/deps/zlib -I/usr/deps/v8/include  -fPIC -pthread -Wall -Wextra -Wno-unused-parameter -m64 -O3 -fno-omit-frame-pointer -O3 -fPIC -ffp-contract=off -fno-math-errno -Wno-psabi -Wno-unused-parameter -pthread -fno-rtti -fno-exceptions -std=gnu++17 -MMD -MF ./Release/.deps/Release/obj.target/burn_native/src/isa_generic.o.d.raw   -c
Release/obj.target/burn_native/src/isa_generic.o: ../src/isa_generic.cc \
 ../src/kernels.inc ../src/kernels.h
../src/isa_generic.cc:
../src/kernels.inc:
../src/kernels.h:
