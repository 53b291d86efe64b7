// Field schemas the channel providers' configs share: a secret (sealed at rest, masked for viewers,
// write-mostly), and a provider-side identifier that becomes part of a URL or a token's audience.
import { z } from 'zod';
import { IDENTIFIER_MAX_LENGTH } from '../common/limits.js';
import { ZNonBlankString } from '../common/primitives.js';
import { SECRET_FIELD_RULE } from '../secrets/secret-mask.js';
import { makeSecretString } from '../secrets/secret-string.js';

export const ZChannelSecret = makeSecretString(ZNonBlankString).meta({ description: SECRET_FIELD_RULE });

/** Not a secret; trimmed, since stray whitespace would end up in a URL or an audience check. */
export const ZProviderIdentifier = z.string().trim().min(1).max(IDENTIFIER_MAX_LENGTH);
