import type { Request } from 'express';

interface RouterLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): boolean;
}

function safeMatch(layer: RouterLayer, path: string): boolean {
  try {
    return layer.match(path);
  } catch {
    return false; // a malformed percent-encoding in the path matches nothing
  }
}

/**
 * The methods registered for the request's path on the Express router, so that a
 * known path with an unknown method answers 405 with `Allow` instead of 404.
 */
export function allowedMethodsFor(request: Request): string[] {
  const router = (request.app as any)?.router ?? (request.app as any)?._router;
  const stack: RouterLayer[] = router?.stack ?? [];
  const methods = new Set<string>();
  const path = request.path;
  for (const layer of stack) {
    if (!layer.route) continue;
    const registered = Object.keys(layer.route.methods).filter((method) => layer.route!.methods[method] && method !== '_all');
    // Catch-all routes (app.all) answer every method: they say nothing about this path.
    if (layer.route.methods._all || registered.length > 8) continue;
    if (!safeMatch(layer, path)) continue;
    for (const method of registered) methods.add(method.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  methods.delete(request.method.toUpperCase());
  return methods.size > 0 && !methods.has(request.method.toUpperCase()) ? [...methods].sort() : [];
}
