// Writes diabetes.tsv, the table this example ships: 442 synthetic patient records with the
// columns, value ranges and tab delimiter of the diabetes table Burn's example downloads (Efron et
// al., "Least Angle Regression", 2004), which is not available offline. The response Y is a fixed
// function of BMI, blood pressure and S5 plus noise, as in the real data those three carry most of
// the signal. Run `node --import tsx examples/custom-csv-dataset/generate.ts` to rewrite it.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SeededRng } from 'burn-ts/data';

const rng = new SeededRng(442);
const normal = (): number => Math.sqrt(-2 * Math.log(1 - rng.nextFloat())) * Math.cos(2 * Math.PI * rng.nextFloat());
const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
const fixed = (v: number, digits: number): string => String(Number(v.toFixed(digits)));

const rows = ['AGE\tSEX\tBMI\tBP\tS1\tS2\tS3\tS4\tS5\tS6\tY'];
for (let i = 0; i < 442; i++) {
  const age = Math.round(clamp(48 + 13 * normal(), 19, 79));
  const sex = rng.nextFloat() < 0.53 ? 1 : 2;
  const bmi = clamp(26.4 + 4.4 * normal(), 18, 42.2);
  const bp = clamp(94.6 + 13.8 * normal(), 62, 133);
  const s1 = Math.round(clamp(189 + 34 * normal(), 97, 301));
  const s2 = clamp(0.6 * s1 + 2 + 15 * normal(), 41.6, 242.4);
  const s3 = clamp(49.8 + 12.9 * normal(), 22, 99);
  const s4 = clamp(s1 / s3 + 0.3 * normal(), 2, 9.09);
  const s5 = clamp(4.64 + 0.52 * normal(), 3.26, 6.11);
  const s6 = Math.round(clamp(91 + 11.5 * normal(), 58, 124));
  const y = Math.round(clamp(152 + 9.5 * (bmi - 26.4) + 1.1 * (bp - 94.6) + 60 * (s5 - 4.64) + 40 * normal(), 25, 346));
  rows.push(
    [age, sex, fixed(bmi, 1), fixed(bp, 2), s1, fixed(s2, 1), fixed(s3, 0), fixed(s4, 2), fixed(s5, 4), s6, y].join(
      '\t',
    ),
  );
}
const path = fileURLToPath(new URL('diabetes.tsv', import.meta.url));
writeFileSync(path, `${rows.join('\n')}\n`);
console.log(`wrote ${rows.length - 1} records to ${path}`);
