// Compiles the AssemblyScript kernels of wasm/ into the `wasm` CPU engine's modules, next to the
// loader in src/ and in dist/ (src/backends/cpu/wasm/kernels-{mt,st}.wasm):
//   kernels-mt.wasm  imports a shared memory (worker threads over SharedArrayBuffer)
//   kernels-st.wasm  imports a plain memory (single-threaded: browsers without cross-origin isolation)
// Run by `npm run build` (so by `npm install` through `prepare`); needs only the `assemblyscript`
// dev dependency, no system toolchain. Skips the compile when the modules are newer than every source.
import { existsSync, mkdirSync, readdirSync, statSync, copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sources = join(root, 'wasm', 'assembly');
const targets = [join(root, 'src', 'backends', 'cpu', 'wasm'), join(root, 'dist', 'backends', 'cpu', 'wasm')];
const variants = {
  mt: ['--importMemory', '--sharedMemory', '--initialMemory', '32', '--maximumMemory', '65536', '--enable', 'threads'],
  st: ['--importMemory', '--initialMemory', '32', '--maximumMemory', '65536'],
};
const common = ['--runtime', 'stub', '--enable', 'simd', '-O3', '--noAssert', '--noExportMemory'];

const newestSource = Math.max(
  statSync(fileURLToPath(import.meta.url)).mtimeMs,
  ...readdirSync(sources).map((f) => statSync(join(sources, f)).mtimeMs),
);
const primary = targets[0];
const upToDate = Object.keys(variants).every((v) => {
  const out = join(primary, `kernels-${v}.wasm`);
  return existsSync(out) && statSync(out).mtimeMs > newestSource;
});

if (!upToDate) {
  let asc;
  try {
    asc = await import('assemblyscript/asc');
  } catch (e) {
    console.error(
      `build-wasm: cannot load the AssemblyScript compiler (npm install --include=dev): ${e instanceof Error ? e.message : e}`,
    );
    process.exit(1);
  }
  for (const [variant, flags] of Object.entries(variants)) {
    const out = join(primary, `kernels-${variant}.wasm`);
    const { error, stderr } = await asc.main([join(sources, 'index.ts'), '-o', out, ...common, ...flags], {});
    if (error) {
      console.error(`build-wasm: compiling the ${variant} module failed:\n${stderr.toString()}`);
      process.exit(1);
    }
  }
  console.log(
    `build-wasm: compiled ${Object.keys(variants)
      .map((v) => `kernels-${v}.wasm`)
      .join(', ')}`,
  );
}
for (const dir of targets.slice(1)) {
  mkdirSync(dir, { recursive: true });
  for (const v of Object.keys(variants))
    copyFileSync(join(primary, `kernels-${v}.wasm`), join(dir, `kernels-${v}.wasm`));
}
