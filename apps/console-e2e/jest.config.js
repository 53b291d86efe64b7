import { jestConfig } from '../../jest.preset.js';

// A browser and the whole platform per suite: generous bounds for a loaded machine. Tests wait on causes
// (an element shown, a request made), never on the clock; these only stop a stuck run.
export default jestConfig({ database: true, testTimeout: 600_000, maxWorkers: 2 });
