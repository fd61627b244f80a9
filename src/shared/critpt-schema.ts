/** The contract's CritPt request body as JSON Schema: the server checks posts with it, the build documents it. */
export const critptRequestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['submissions', 'batch_metadata'],
  properties: {
    submissions: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['problem_id', 'generated_code', 'model', 'generation_config'],
        properties: {
          problem_id: { type: 'string', minLength: 1 },
          generated_code: { type: 'string' },
          model: { type: 'string', minLength: 1 },
          generation_config: { type: 'object' },
          messages: { type: 'array', items: { type: 'object' } },
        },
      },
    },
    batch_metadata: { type: 'object' },
  },
};
