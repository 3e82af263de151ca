import type { Tracer } from '@opentelemetry/api';
import { inSpanOf, SpanAttributes, SpanKind } from '#libs/tracing';

const POSTGRESQL = { [SpanAttributes.dbSystemName]: 'postgresql' };

/** The statement's first word (SELECT, INSERT, WITH...): the span's name. SQL text is parameterised, so it holds no values. */
function operationOf(sql: string): string {
  const match = /^\s*([A-Za-z]+)/.exec(sql);
  return match ? match[1].toUpperCase() : 'SQL';
}

/**
 * A statement in a span of the traced request it runs for: the one executor seam, PreparedQueries
 * and their transactions call this when `activeTracer()` found one (with tracing off, or outside
 * a traced request, they run the statement as it is after that one check).
 */
export function tracedStatement<T>(tracer: Tracer, sql: string, run: () => Promise<T>): Promise<T> {
  const operation = operationOf(sql);
  return inSpanOf(tracer, operation, SpanKind.CLIENT, { ...POSTGRESQL, [SpanAttributes.dbOperationName]: operation, [SpanAttributes.dbQueryText]: sql }, run);
}

/** A transaction as a span: its statements are its children. */
export function tracedTransaction<T>(tracer: Tracer, run: () => Promise<T>): Promise<T> {
  return inSpanOf(tracer, 'transaction', SpanKind.INTERNAL, POSTGRESQL, run);
}
