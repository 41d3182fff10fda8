import { BurnError } from '../../../core/errors.js';
import { DatasetBase, getMany, type Dataset } from '../dataset.js';
import { recipeOf, type Revive, type WorkerRecipe } from '../recipe.js';

/**
 * Maps an item to another (Burn's `Mapper<I, O>`). A mapper that implements `workerRecipe` can run
 * in data loader workers together with its dataset (see `src/data/README.md`).
 */
export interface Mapper<I, O> {
  /** The mapped item. */
  map(item: I): O;
  /** How a worker thread rebuilds this mapper, or `undefined` when it cannot. */
  workerRecipe?(): WorkerRecipe | undefined;
}

/**
 * A dataset whose items are those of `dataset` passed through `mapper`, lazily on each `get`
 * (Burn's `MapperDataset`). `mapper` is a {@link Mapper} or a plain function.
 */
export class MapperDataset<I, O> extends DatasetBase<O> {
  private readonly mapper: Mapper<I, O>;

  constructor(
    private readonly dataset: Dataset<I>,
    mapper: Mapper<I, O> | ((item: I) => O),
  ) {
    super();
    if (typeof mapper === 'function') this.mapper = { map: mapper };
    else if (mapper !== null && typeof mapper === 'object' && typeof mapper.map === 'function') this.mapper = mapper;
    else
      throw new BurnError(
        'MapperDataset',
        `mapper ${String(mapper)}; expected a Mapper (an object with map(item)) or a function`,
      );
  }

  get(index: number): O | undefined {
    const item = this.dataset.get(index);
    return item === undefined ? undefined : this.mapper.map(item);
  }

  override getMany(indices: readonly number[]): O[] {
    return getMany(this.dataset, indices, 'MapperDataset.getMany').map((item) => this.mapper.map(item));
  }

  len(): number {
    return this.dataset.len();
  }

  /** Reopenable in a worker when both the dataset and the mapper are. */
  workerRecipe(): WorkerRecipe | undefined {
    const dataset = recipeOf(this.dataset);
    const mapper = recipeOf(this.mapper);
    if (!dataset || !mapper) return undefined;
    return { module: import.meta.url, export: 'openMapperDataset', args: { dataset, mapper } };
  }
}

/** Worker factory of {@link MapperDataset}. */
export async function openMapperDataset(
  args: { dataset: WorkerRecipe; mapper: WorkerRecipe },
  revive: Revive,
): Promise<MapperDataset<unknown, unknown>> {
  return new MapperDataset(
    (await revive(args.dataset)) as Dataset<unknown>,
    (await revive(args.mapper)) as Mapper<unknown, unknown>,
  );
}
