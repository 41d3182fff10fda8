// The page's data loader worker: serves the page's own dataset factory (burn-ts's transforms are built in).
import { serveDataWorker } from '../../../src/data/index.browser.js';
import { openSquares } from './squares.js';

serveDataWorker({ openSquares });
