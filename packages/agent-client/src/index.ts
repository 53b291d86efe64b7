export { ResumableHttpAgent } from './resumable-http-agent.js';
