import { Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { AppMetrics, DATABASE_DEPENDENCY, DependencyOutages, isLockTimeout, unavailableDependencyOf } from '#libs/common';

/**
 * Counts MCP tool calls by tool and outcome (`ok` or the error code of the isError result), and
 * reports a call refused because the database is down to the outage log like any refused request
 * (a lock wait is counted as a lock timeout instead, as for HTTP requests).
 * Each app's MCP module provides one.
 */
@Injectable()
export class McpToolMetrics {
  private readonly calls: Counter<'tool' | 'outcome'>;

  constructor(
    metrics: AppMetrics,
    private readonly outages: DependencyOutages,
  ) {
    this.calls = metrics.counter({
      name: 'mcp_tool_calls_total',
      help: 'MCP tool calls, by tool and outcome (ok, or the error code of the isError result)',
      labelNames: ['tool', 'outcome'],
    });
  }

  /** Pass as runTool's listener: `runTool(body, metrics.listenerFor(name))`; `tool` must be a registered tool's name. */
  listenerFor(tool: string): (outcome: string, error?: unknown) => void {
    return (outcome, error) => {
      this.calls.inc({ tool, outcome });
      const dependency = error === undefined ? undefined : unavailableDependencyOf(error);
      if (dependency) this.outages.refused(dependency, error);
      else if (error !== undefined && isLockTimeout(error)) this.outages.lockTimedOut(DATABASE_DEPENDENCY);
    };
  }
}
