// The diabetes dataset: a tab-separated file read into memory as typed records, behind a Dataset
// class of our own (Burn's `DiabetesDataset` around `InMemDataset::from_csv`).
import { fileURLToPath } from 'node:url';
import { InMemDataset, type Dataset, type WorkerRecipe } from 'burn-ts/data';

/** The file's columns and their types: the integers are checked to be integers. */
const COLUMNS = {
  AGE: 'integer',
  SEX: 'integer',
  BMI: 'number',
  BP: 'number',
  S1: 'integer',
  S2: 'number',
  S3: 'number',
  S4: 'number',
  S5: 'number',
  S6: 'integer',
  Y: 'integer',
} as const;

/** One patient, with readable names for the file's capitalized columns (serde's `rename` in Burn). */
export interface DiabetesPatient {
  /** Age in years. */
  age: number;
  /** Sex, a categorical label (1 or 2). */
  sex: number;
  /** Body mass index. */
  bmi: number;
  /** Average blood pressure. */
  bp: number;
  /** S1: total serum cholesterol. */
  tc: number;
  /** S2: low-density lipoproteins. */
  ldl: number;
  /** S3: high-density lipoproteins. */
  hdl: number;
  /** S4: total cholesterol / HDL. */
  tch: number;
  /** S5: possibly the log of the serum triglycerides level. */
  ltg: number;
  /** S6: blood sugar level. */
  glu: number;
  /** Y: a quantitative measure of disease progression one year after baseline. */
  response: number;
}

/** The file shipped beside this example. */
export const DIABETES_TSV = fileURLToPath(new URL('diabetes.tsv', import.meta.url));

/** 442 patients read from a tab-separated file; a `Dataset` as any other (transforms, loaders, workers). */
export class DiabetesDataset implements Dataset<DiabetesPatient> {
  private readonly dataset: InMemDataset<DiabetesPatient>;

  constructor(readonly path: string = DIABETES_TSV) {
    // Typed columns: a value that is not a number (or not an integer) is a BurnError naming file, line and column.
    const rows = InMemDataset.fromCsv(path, { delimiter: '\t', columns: COLUMNS });
    this.dataset = new InMemDataset(
      rows.toArray().map((r) => ({
        age: r.AGE,
        sex: r.SEX,
        bmi: r.BMI,
        bp: r.BP,
        tc: r.S1,
        ldl: r.S2,
        hdl: r.S3,
        tch: r.S4,
        ltg: r.S5,
        glu: r.S6,
        response: r.Y,
      })),
    );
  }

  get(index: number): DiabetesPatient | undefined {
    return this.dataset.get(index);
  }

  len(): number {
    return this.dataset.len();
  }

  /** How a data-loader worker reopens this dataset: it re-reads the file (only the path travels). */
  workerRecipe(): WorkerRecipe {
    return { module: import.meta.url, export: 'openDiabetesDataset', args: { path: this.path } };
  }
}

/** Worker factory of {@link DiabetesDataset}. */
export function openDiabetesDataset(args: { path: string }): DiabetesDataset {
  return new DiabetesDataset(args.path);
}
