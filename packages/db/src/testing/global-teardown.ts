import { tearDownTestDatabases } from './global-setup.js';

export default tearDownTestDatabases;
