import { jestConfig } from '../../jest.preset.js';

export default jestConfig({ database: true, testTimeout: 60_000 });
