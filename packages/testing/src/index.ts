export { waitUntil } from './wait-until.js';
