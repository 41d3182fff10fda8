// Writes the example's CSV files: a synthetic, California-housing-like table (Burn's example reads
// the real one from the HuggingFace hub, which needs the network). Eight features per district and
// the median house value (in 100 000 $) as a fixed non-linear function of them plus noise, so a
// model can learn it and its error can be compared with the noise floor.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SeededRng } from 'burn-ts/data';

/** The CSV columns, in file order: the features, then the target. */
export const FEATURES = [
  'MedInc',
  'HouseAge',
  'AveRooms',
  'AveBedrms',
  'Population',
  'AveOccup',
  'Latitude',
  'Longitude',
] as const;
export const TARGET = 'MedHouseVal';
/** Standard deviation of the noise added to the target: the best achievable RMSE. */
export const NOISE_STD = 0.25;

/** One district's features and target value. */
function district(rng: SeededRng): number[] {
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - rng.nextFloat())) * Math.cos(2 * Math.PI * rng.nextFloat());
  const medInc = Math.min(15, Math.exp(1.25 + 0.45 * normal()));
  const houseAge = 1 + Math.floor(rng.nextFloat() * 52);
  const aveRooms = Math.max(1, 3 + 0.35 * medInc + normal());
  const aveBedrms = Math.max(0.5, 0.2 * aveRooms + 0.1 * normal());
  const population = Math.round(Math.max(3, Math.exp(7.1 + 0.7 * normal())));
  const aveOccup = Math.max(1, 2.9 + 0.6 * normal());
  // Two "coastal cities" raise prices near them.
  const city = rng.nextFloat() < 0.5;
  const latitude = (city ? 34 : 37.7) + 1.6 * normal();
  const longitude = (city ? -118.3 : -122.3) + 1.4 * normal();
  const distance = Math.min(
    Math.hypot(latitude - 34, longitude + 118.3),
    Math.hypot(latitude - 37.7, longitude + 122.3),
  );
  const value =
    0.45 * medInc +
    0.006 * houseAge +
    1.6 * Math.exp(-distance / 1.5) -
    0.08 * (aveOccup - 3) +
    0.05 * Math.log(population / 1000) +
    0.3;
  const noisy = value + NOISE_STD * normal();
  return [
    medInc,
    houseAge,
    aveRooms,
    aveBedrms,
    population,
    aveOccup,
    latitude,
    longitude,
    Math.min(5, Math.max(0.15, noisy)),
  ];
}

/**
 * Writes `train.csv`, `validation.csv` and `test.csv` (`sizes` rows each) into `dir`, seeded so
 * every run writes the same files; returns their paths.
 */
export function writeHousingCsv(
  dir: string,
  sizes: { train: number; validation: number; test: number },
  seed = 1337,
): Record<'train' | 'validation' | 'test', string> {
  mkdirSync(dir, { recursive: true });
  const rng = new SeededRng(seed);
  const header = [...FEATURES, TARGET].join(',');
  const paths = { train: join(dir, 'train.csv'), validation: join(dir, 'validation.csv'), test: join(dir, 'test.csv') };
  for (const split of ['train', 'validation', 'test'] as const) {
    const rows = Array.from({ length: sizes[split] }, () =>
      district(rng)
        .map((v) => String(Math.round(v * 1e4) / 1e4))
        .join(','),
    );
    writeFileSync(paths[split], `${header}\n${rows.join('\n')}\n`);
  }
  return paths;
}
