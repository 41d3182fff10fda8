import { Config, z } from '../../src/index.js';
import { AdamConfig } from '../../src/optim/index.js';
class TC extends Config.define({ optimizer: AdamConfig.schema, lr: z.number().default(1) }) {}
const c = new TC({ optimizer: new AdamConfig({}) });
c.optimizer.init();
