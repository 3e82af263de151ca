import SwaggerParser from '@apidevtools/swagger-parser';

/** Validates a document with @apidevtools/swagger-parser; resolves to 'valid' or the parser's complaint. */
export async function validateOpenApi(document: unknown): Promise<string> {
  try {
    // The parser dereferences in place: give it a copy.
    await SwaggerParser.validate(structuredClone(document) as Parameters<typeof SwaggerParser.validate>[0]);
    return 'valid';
  } catch (error) {
    return `invalid: ${(error as Error).message}`;
  }
}
