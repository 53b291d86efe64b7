// Bodies and response of /api/v1/guardrails.
import type { z } from 'zod';
import { makeResourceBody, makeResourceResponse } from '../common/envelope.js';
import { ZGuardrailConfig } from './guardrail-config.js';

export const GUARDRAIL_KEY = 'guardrail';

const GUARDRAIL_EXAMPLE = {
  name: 'Customer data',
  guardrail: {
    description: 'No card numbers or banned topics in replies',
    rules: [
      { name: 'cards', kind: 'pii', entities: ['payment_card', 'iban'], position: 'output', action: 'redact' },
      { name: 'topics', kind: 'pattern', phrases: ['insider tip'], position: 'output', action: 'block' },
      { name: 'injection', kind: 'prompt_injection', position: 'tool_result', action: 'block' },
    ],
  },
};

export const ZGuardrailCreate = makeResourceBody(GUARDRAIL_KEY, ZGuardrailConfig).meta({
  id: 'GuardrailCreate',
  examples: [GUARDRAIL_EXAMPLE],
});
export type TGuardrailCreate = z.infer<typeof ZGuardrailCreate>;
export type TGuardrailCreateInput = z.input<typeof ZGuardrailCreate>;

// PATCH is a full replacement, so the update body has the create body's shape.
export const ZGuardrailUpdate = makeResourceBody(GUARDRAIL_KEY, ZGuardrailConfig).meta({
  id: 'GuardrailUpdate',
  examples: [GUARDRAIL_EXAMPLE],
});

export const ZGuardrail = makeResourceResponse(GUARDRAIL_KEY, ZGuardrailConfig).meta({
  id: 'GuardrailResource',
  description: 'A managed guardrail',
});
export type TGuardrail = z.infer<typeof ZGuardrail>;
