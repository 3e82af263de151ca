// Validates an OpenAPI document read from stdin with @apidevtools/swagger-parser.
// Run as its own Node process: the parser is CommonJS requiring an ES module, which
// Node 20 allows but Jest's module loader does not.
import SwaggerParser from '@apidevtools/swagger-parser';

let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
try {
  await SwaggerParser.validate(JSON.parse(input));
  process.stdout.write('valid\n');
} catch (error) {
  process.stdout.write(`invalid: ${error.message}\n`);
  process.exitCode = 1;
}
