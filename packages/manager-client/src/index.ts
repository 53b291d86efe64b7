export { ManagerClient } from './manager-client.js';
