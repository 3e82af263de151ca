import { SetMetadata } from '@nestjs/common';

const RAW_RESPONSE = 'raw-response';
/** Marks a route that writes its own body (HTML pages, scripts, SSE, MCP, metrics): no success envelope. */
export const RawResponse = () => SetMetadata(RAW_RESPONSE, true);

/** Whether a route is marked @RawResponse, on its handler or its controller. */
export function isRawResponse(handler: object, controller: object): boolean {
  return Reflect.getMetadata(RAW_RESPONSE, handler) === true || Reflect.getMetadata(RAW_RESPONSE, controller) === true;
}

export interface SuccessBody<T> {
  success: true;
  data: T;
}

/** The success envelope around a handler's result (no result is `data: null`). */
export function successBody<T>(data: T | undefined): SuccessBody<T | null> {
  return { success: true, data: data ?? null };
}
