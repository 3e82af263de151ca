import { z } from 'zod';
import type { CallToolResult, ListToolsResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Type } from '@nestjs/common';
import { AppException, VALIDATION_MESSAGES, publicCodeOf, validateAsBody, validationException, type ErrorCode, type FieldError } from '#libs/common';
import { rulesDisagreement } from './mcp-rules-agreement.js';
import { runTool, toolError, type ToolOutcomeListener } from './tool-result.js';

/** What an agent may assume about a tool (MCP tool annotations); every tool states all four. */
interface McpToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * One MCP tool. `input` is the only validation of the arguments (the SDK does not see it);
 * `output` is announced as outputSchema and describes `run`'s answer, which becomes structuredContent.
 */
export interface McpTool<Principal, Scope extends string, Input extends z.ZodObject = z.ZodObject, Output extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: Input;
  output: Output;
  /** The caller needs one of these scopes to see and call the tool. */
  scopes: readonly Scope[];
  hints: McpToolHints;
  /**
   * The REST route's body DTO, when the tool takes the same input: the arguments it declares are
   * validated with its rules first, so a refusal reads as REST's, word for word (one rule source);
   * `input` then checks the rest (ids, unknown arguments).
   */
  rules?: Type<object>;
  /** Calls the service the REST route calls; AppExceptions become isError results with the REST code. */
  run(principal: Principal, args: z.output<Input>): Promise<z.input<Output>>;
}

/** The app's scope vocabulary: libs/mcp knows scopes only as strings the app hands in. */
export interface McpScopeVocabulary<Principal, Scope extends string> {
  /** The scopes the caller's credential holds (an API key, a site token, later an OAuth token). */
  scopesOf(principal: Principal): readonly Scope[];
  /** The REST code of a call refused for want of scope (the code REST answers for the same refusal). */
  refusalCode: ErrorCode;
  /** How a person names the credential that carries a scope, e.g. "a wk_ token". */
  credentialFor(scope: Scope): string;
}

/** zod's expected types named as REST's type rules name them (`VALIDATION_MESSAGES`), so a wrong type reads alike on both surfaces. */
const REST_TYPE_RULES: Record<string, string> = { int: 'isInt', number: 'isNumber', string: 'isString', boolean: 'isBoolean', array: 'isArray', object: 'isObject' };

/** One zod issue in REST's words where REST has words for it (absent, null, wrong type), else zod's. */
function messageOf(issue: z.core.$ZodIssue, field: string): string {
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return `${field} is required`;
    if (issue.input === null) return `${field} must not be null`;
    const rule = REST_TYPE_RULES[issue.expected];
    if (rule && VALIDATION_MESSAGES[rule]) return VALIDATION_MESSAGES[rule](field);
  }
  return `${field}: ${issue.message}`;
}

/** zod's issues in the REST VALIDATION_ERROR form (`details.fields`), so both surfaces read alike. */
function fieldErrorsOf(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue): FieldError[] => {
    const field = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: field ? `${field}.${key}` : key, messages: [`${key} is not a known argument of this tool`] }));
    }
    return [{ field: field || 'arguments', messages: [field ? messageOf(issue, field) : issue.message] }];
  });
}

/** zod's stand-ins for "any integer" (JavaScript's safe range): noise in a listing, dropped. */
const SAFE_INTEGER_BOUNDS: Record<string, number> = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };
/** Keywords that describe a value whatever its type: they stay beside an anyOf, not inside a branch. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'deprecated', 'examples', 'readOnly', 'writeOnly']);

/**
 * A JSON Schema as every MCP client reads it: a type union (`"type": ["string", "null"]`, legal
 * but read as a single string by several clients) becomes an anyOf of one-type branches, and
 * zod's safe-integer bounds go. The values it accepts are the same.
 */
export function portableSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portableSchema);
  if (typeof node !== 'object' || node === null) return node;
  const entries = Object.entries(node as Record<string, unknown>)
    .filter(([key, value]) => SAFE_INTEGER_BOUNDS[key] === undefined || value !== SAFE_INTEGER_BOUNDS[key])
    .map(([key, value]): [string, unknown] => {
      if (key === 'properties' || key === 'definitions' || key === '$defs') {
        return [key, Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, schema]) => [name, portableSchema(schema)]))];
      }
      return [key, typeof value === 'object' ? portableSchema(value) : value];
    });
  const schema = Object.fromEntries(entries);
  if (!Array.isArray(schema.type)) return schema;
  const annotations = Object.fromEntries(entries.filter(([key]) => ANNOTATIONS.has(key)));
  const rest = Object.fromEntries(entries.filter(([key]) => !ANNOTATIONS.has(key) && key !== 'type'));
  const branches = (schema.type as string[]).map((type) => (type === 'null' ? { type } : { type, ...rest }));
  return { ...annotations, anyOf: branches };
}

/** JSON Schema draft-07 (what MCP clients validate with) of a zod schema, as input or as output. */
function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'draft-7', io }) as Record<string, unknown>;
  return portableSchema(json) as Tool['inputSchema'];
}

interface RegisteredTool<Principal, Scope extends string> {
  tool: McpTool<Principal, Scope, z.ZodObject, z.ZodObject>;
  listed: Tool;
}

/**
 * The tools of one MCP endpoint. Feature modules register theirs in onModuleInit; every
 * request then finds its answers here: the tools/list answer per set of scopes is built once
 * and cached, a call is scope-checked, validated once against the tool's zod schema, and run.
 */
export class McpToolRegistry<Principal, Scope extends string> {
  private readonly tools = new Map<string, RegisteredTool<Principal, Scope>>();
  private readonly listings = new Map<string, ListToolsResult>();

  constructor(private readonly vocabulary: McpScopeVocabulary<Principal, Scope>) {}

  register<Input extends z.ZodObject, Output extends z.ZodObject>(tool: McpTool<Principal, Scope, Input, Output>): void {
    if (this.tools.has(tool.name)) throw new Error(`MCP tool ${tool.name} is registered twice`);
    if (tool.scopes.length === 0) throw new Error(`MCP tool ${tool.name} names no scope`);
    // Arguments a tool does not know are refused, as REST refuses unknown properties.
    const input = tool.input.strict();
    const inputSchema = jsonSchemaOf(input, 'input');
    // The arguments agents read must say what the REST rules that validate them say: checked at boot, like the auth table.
    const disagreements = tool.rules ? rulesDisagreement(tool.rules, inputSchema) : [];
    if (disagreements.length > 0) throw new Error(`MCP tool ${tool.name}: its arguments disagree with its REST rules (${tool.rules!.name}): ${disagreements.join('; ')}`);
    const listed: Tool = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema,
      outputSchema: jsonSchemaOf(tool.output, 'output'),
      annotations: { title: tool.title, ...tool.hints },
    };
    this.tools.set(tool.name, { tool: { ...tool, input } as unknown as McpTool<Principal, Scope, z.ZodObject, z.ZodObject>, listed });
    this.listings.clear();
  }

  /** The names of every registered tool, in listing order. */
  names(): string[] {
    return [...this.tools.keys()].sort();
  }

  /** tools/list for this caller: only the tools its scopes allow, in name order (stable across calls and replicas). */
  listFor(principal: Principal): ListToolsResult {
    const held = this.vocabulary.scopesOf(principal);
    const key = [...held].sort().join(' ');
    let listing = this.listings.get(key);
    if (!listing) {
      const tools = this.names()
        .map((name) => this.tools.get(name)!)
        .filter(({ tool }) => tool.scopes.some((scope) => held.includes(scope)))
        .map(({ listed }) => listed);
      listing = { tools };
      this.listings.set(key, listing);
    }
    return listing;
  }

  /**
   * tools/call: undefined for an unknown tool (the caller answers a JSON-RPC error), else the
   * result. Refusals and failures are isError results naming the REST code; a refusal for want
   * of scope names the scopes that would do in `details.requiredScopes`.
   */
  async call(principal: Principal, name: string, args: Record<string, unknown> | undefined, onOutcome?: ToolOutcomeListener): Promise<CallToolResult | undefined> {
    const registered = this.tools.get(name);
    if (!registered) return undefined;
    const { tool } = registered;
    const held = this.vocabulary.scopesOf(principal);
    if (!tool.scopes.some((scope) => held.includes(scope))) {
      const refusal = new AppException(
        this.vocabulary.refusalCode,
        `The tool ${tool.name} needs ${tool.scopes.map((scope) => this.vocabulary.credentialFor(scope)).join(' or ')}`,
        { requiredScopes: [...tool.scopes] },
      );
      onOutcome?.(publicCodeOf(refusal.code), refusal);
      return toolError(refusal);
    }
    return runTool(async () => {
      if (tool.rules) await validateAsBody(tool.rules, args ?? {});
      const parsed = tool.input.safeParse(args ?? {}, { reportInput: true });
      if (!parsed.success) throw validationException(fieldErrorsOf(parsed.error));
      return (await tool.run(principal, parsed.data)) as Record<string, unknown>;
    }, onOutcome);
  }
}
