// Regenerates src/onnx/proto/onnx/*_pb.ts from scripts/onnx/proto/onnx/*.proto with buf and
// protoc-gen-es (both devDependencies). The .proto files are ONNX's own (onnx 1.12, IR version 8:
// onnx-ml.proto, the ML variant and a superset of onnx.proto, and onnx-data.proto, the
// SequenceProto/OptionalProto of test data), copied from Debian's python3-onnx:
//   cp /usr/lib/python3/dist-packages/onnx/onnx-{ml,data}.proto scripts/onnx/proto/onnx/
// Run: node scripts/onnx/gen-proto.mjs
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const template = {
  version: 'v2',
  plugins: [
    {
      local: 'node_modules/.bin/protoc-gen-es',
      out: 'src/onnx/proto',
      // ESM under nodenext needs `.js` import specifiers; plain TypeScript output is committed.
      opt: ['target=ts', 'import_extension=js'],
    },
  ],
};
execFileSync('node_modules/.bin/buf', ['generate', 'scripts/onnx/proto', '--template', JSON.stringify(template)], {
  cwd: root,
  stdio: 'inherit',
});
console.log('wrote src/onnx/proto/onnx/onnx-ml_pb.ts and onnx-data_pb.ts');
