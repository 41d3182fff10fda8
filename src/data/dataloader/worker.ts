/**
 * The entry of a data loader worker thread: reopens the dataset from its recipe, then answers
 * load requests with the items. Started by `WorkerPool`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Dataset } from '../dataset/dataset.js';
import { reviveRecipe } from '../dataset/recipe.js';
import type { LoadRequest, WorkerInit } from './worker-protocol.js';
import { serveLoads } from './worker-serve.js';

const init = workerData as WorkerInit;
const port = parentPort!;
const dataset = reviveRecipe(init.recipe).then((d) => d as Dataset<unknown>);
const onLoad = serveLoads(dataset, (reply, transfer) => port.postMessage(reply, transfer));
port.on('message', (request: LoadRequest) => onLoad(request));
