import { fileURLToPath } from 'node:url';

/** The committed page, so that it reads on the repository's web view too. */
export const CONFIG_REFERENCE_FILE = fileURLToPath(new URL('../../pages/reference/configuration.md', import.meta.url));
