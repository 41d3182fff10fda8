# Regenerates test/fixtures/onnx/node-tests.tar.gz: ONNX's backend node tests (model.onnx plus
# test_data_set_*/input_*.pb and output_*.pb per test), as written by Debian's python3-onnx 1.12.
# Run: /usr/bin/python3 scripts/onnx/gen_node_tests.py
#
# onnx 1.12 still uses NumPy aliases that current NumPy removed (np.float, np.int, np.bool,
# np.object…); they are re-added before the generator runs. The archive is deterministic (sorted
# entries, zero mtimes and owners), so regenerating with the same onnx gives the same bytes.
import gzip
import io
import os
import runpy
import sys
import tarfile
import tempfile
import warnings

import numpy as np

warnings.simplefilter('ignore', FutureWarning)
for alias, value in (('float', float), ('int', int), ('bool', bool), ('object', object), ('complex', complex), ('str', str)):
    if alias not in np.__dict__:
        setattr(np, alias, value)

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, '..', '..', 'test', 'fixtures', 'onnx', 'node-tests.tar.gz')

with tempfile.TemporaryDirectory() as tmp:
    argv = sys.argv
    sys.argv = ['cmd_tools', 'generate-data', '-o', tmp]
    try:
        runpy.run_module('onnx.backend.test.cmd_tools', run_name='__main__')
    finally:
        sys.argv = argv
    root = os.path.join(tmp, 'node')
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.USTAR_FORMAT) as tar:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                info = tar.gettarinfo(path, arcname=os.path.relpath(path, root))
                info.mtime = 0
                info.uid = info.gid = 0
                info.uname = info.gname = ''
                info.mode = 0o644
                with open(path, 'rb') as f:
                    tar.addfile(info, f)
    with open(out, 'wb') as f:
        with gzip.GzipFile(fileobj=f, mode='wb', mtime=0, filename='') as gz:
            gz.write(buf.getvalue())
    import onnx
    count = len([d for d in os.listdir(root)])
    print(f'wrote {os.path.relpath(out)}: {count} node tests from onnx {onnx.__version__}, {os.path.getsize(out)} bytes')
