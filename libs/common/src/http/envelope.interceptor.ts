import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { map, Observable } from 'rxjs';

const RAW_RESPONSE = 'raw-response';
/** Marks a route that writes its own body (HTML pages, SSE, MCP, the OpenAPI document). */
export const RawResponse = () => SetMetadata(RAW_RESPONSE, true);

export interface SuccessBody<T> {
  success: true;
  data: T;
}

/** Wraps every handler's return value as `{success: true, data}`. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const raw = this.reflector.getAllAndOverride<boolean>(RAW_RESPONSE, [context.getHandler(), context.getClass()]);
    if (raw || context.getType() !== 'http') return next.handle();
    return next.handle().pipe(map((data): SuccessBody<unknown> => ({ success: true, data: data ?? null })));
  }
}
