import { z } from 'zod';
import type { CallToolResult, ListToolsResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AppException, publicCodeOf, validationException, type ErrorCode, type FieldError } from '#libs/common';
import { runTool, toolError, type ToolOutcomeListener } from './tool-result.js';

/** What an agent may assume about a tool (MCP tool annotations); every tool states all four. */
export interface McpToolHints {
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

/** zod's issues in the REST VALIDATION_ERROR form (`details.fields`), so both surfaces read alike. */
function fieldErrorsOf(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue): FieldError[] => {
    const field = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: field ? `${field}.${key}` : key, messages: [`${key} is not a known argument of this tool`] }));
    }
    return [{ field: field || 'arguments', messages: [field ? `${field}: ${issue.message}` : issue.message] }];
  });
}

/** JSON Schema draft-07 (what MCP clients validate with) of a zod schema, as input or as output. */
function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'draft-7', io }) as Record<string, unknown>;
  return json as Tool['inputSchema'];
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
    const listed: Tool = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchemaOf(input, 'input'),
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
      const parsed = tool.input.safeParse(args ?? {});
      if (!parsed.success) throw validationException(fieldErrorsOf(parsed.error));
      return (await tool.run(principal, parsed.data)) as Record<string, unknown>;
    }, onOutcome);
  }
}
