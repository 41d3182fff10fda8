cmd_Release/burn_avx2.a := ln -f "Release/obj.target/burn_avx2.a" "Release/burn_avx2.a" 2>/dev/null || (rm -rf "Release/burn_avx2.a" && cp -af "Release/obj.target/burn_avx2.a" "Release/burn_avx2.a")
