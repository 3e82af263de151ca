/**
 * The deployment files, offline (no cluster, no Docker): every Kubernetes manifest of
 * deploy/kubernetes (the base, and the production overlay rendered as `kubectl apply -k` would:
 * resources, patches, namespace, labels, images) is validated against the Kubernetes schemas of
 * `kubernetes-models`; the two CRDs (Gateway API HTTPRoute, Prometheus Operator ServiceMonitor) have
 * no bundled schema and get a shape check plus their references. Then what must hold between the
 * files and the code: every environment variable the code reads is named in the ConfigMap or a
 * Deployment's env (a new variable without a manifest entry fails here), probes on the apps' probe
 * routes, a grace period above the drain, selectors that select, routes equal to the nginx
 * gateway's; docker/compose.yaml (no app port, migrate first) and docker/Dockerfile (one file, APP
 * argument, digest-pinned base, no dev dependencies), and the heap the entry script gives Node.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { sourceFiles } from '../support/source-files.js';

const ROOT = resolve('.');
const K8S = join(ROOT, 'deploy', 'kubernetes');
const BASE = join(K8S, 'base');
const PRODUCTION = join(K8S, 'overlays', 'production');

type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [key: string]: any };

// ---------------------------------------------------------------------------
// Rendering a kustomization (the subset these files use)
// ---------------------------------------------------------------------------

function readDocuments(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0].message}`);
    return document.toJS() as Manifest;
  });
}

const isObject = (value: unknown): value is Record<string, any> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A strategic merge patch as kustomize applies one to these kinds: maps merge, lists of named items merge by name, other lists are replaced. */
function mergePatch(target: any, patch: any): any {
  if (isObject(target) && isObject(patch)) {
    const out: Record<string, any> = { ...target };
    for (const [key, value] of Object.entries(patch)) out[key] = key in target ? mergePatch(target[key], value) : value;
    return out;
  }
  if (Array.isArray(target) && Array.isArray(patch) && patch.every((item) => isObject(item) && 'name' in item)) {
    const out = [...target];
    for (const item of patch) {
      const at = out.findIndex((existing) => isObject(existing) && existing.name === item.name);
      if (at === -1) out.push(item);
      else out[at] = mergePatch(out[at], item);
    }
    return out;
  }
  return patch;
}

const CLUSTER_SCOPED = new Set(['Namespace']);

function podSpecOf(manifest: Manifest): any {
  return manifest.kind === 'Deployment' || manifest.kind === 'Job' ? manifest.spec?.template?.spec : undefined;
}

function render(dir: string): Manifest[] {
  const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as {
    resources?: string[];
    patches?: Array<{ path: string }>;
    namespace?: string;
    labels?: Array<{ pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }>;
    images?: Array<{ name: string; newName?: string; newTag?: string; digest?: string }>;
  };
  let manifests = (kustomization.resources ?? []).flatMap((resource) => {
    const path = join(dir, resource);
    return statSync(path).isDirectory() ? render(path) : readDocuments(path);
  });
  for (const { path } of kustomization.patches ?? []) {
    for (const patch of readDocuments(join(dir, path))) {
      const at = manifests.findIndex((manifest) => manifest.kind === patch.kind && manifest.metadata.name === patch.metadata.name);
      if (at === -1) throw new Error(`${path}: no ${patch.kind} ${patch.metadata.name} to patch`);
      manifests[at] = mergePatch(manifests[at], patch) as Manifest;
    }
  }
  for (const { pairs, includeSelectors, includeTemplates } of kustomization.labels ?? []) {
    if (includeSelectors || includeTemplates) throw new Error('labels with includeSelectors/includeTemplates: not rendered by this test');
    manifests = manifests.map((manifest) => ({ ...manifest, metadata: { ...manifest.metadata, labels: { ...manifest.metadata.labels, ...pairs } } }));
  }
  if (kustomization.namespace) {
    const namespace = kustomization.namespace;
    manifests = manifests.map((manifest) => (CLUSTER_SCOPED.has(manifest.kind) ? manifest : { ...manifest, metadata: { ...manifest.metadata, namespace } }));
  }
  for (const image of kustomization.images ?? []) {
    for (const manifest of manifests) {
      for (const container of podSpecOf(manifest)?.containers ?? []) {
        if (container.image.replace(/[:@].*$/, '') !== image.name) continue;
        const name = image.newName ?? image.name;
        container.image = image.digest ? `${name}@${image.digest}` : `${name}:${image.newTag ?? 'latest'}`;
      }
    }
  }
  return manifests;
}

// ---------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------

const MODELS: Record<string, { new (data: any): { validate(): void } }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

/** CRDs: no schema ships with kubernetes-models; the fields the cluster would need, checked by hand. */
const CRD_SHAPES: Record<string, (manifest: Manifest) => void> = {
  'gateway.networking.k8s.io/v1/HTTPRoute': (route) => {
    expect(route.spec.parentRefs.length).toBeGreaterThan(0);
    for (const parent of route.spec.parentRefs) expect(typeof parent.name).toBe('string');
    for (const hostname of route.spec.hostnames ?? []) expect(hostname).toMatch(/^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/);
    expect(route.spec.rules.length).toBeGreaterThan(0);
    for (const rule of route.spec.rules) {
      for (const match of rule.matches) expect(['Exact', 'PathPrefix']).toContain(match.path.type);
      for (const filter of rule.filters ?? []) {
        expect(filter.type).toBe('URLRewrite');
        expect(filter.urlRewrite.path.type).toBe('ReplacePrefixMatch');
        expect(typeof filter.urlRewrite.path.replacePrefixMatch).toBe('string');
      }
      for (const backend of rule.backendRefs) expect({ name: typeof backend.name, port: Number.isInteger(backend.port) }).toEqual({ name: 'string', port: true });
    }
  },
  'monitoring.coreos.com/v1/ServiceMonitor': (monitor) => {
    expect(isObject(monitor.spec.selector.matchLabels)).toBe(true);
    expect(monitor.spec.endpoints.length).toBeGreaterThan(0);
    for (const endpoint of monitor.spec.endpoints) {
      expect(typeof endpoint.port).toBe('string');
      expect(endpoint.interval).toMatch(/^\d+[smh]$/);
      expect(endpoint.authorization?.type).toBe('Bearer');
    }
  },
};

function validate(manifest: Manifest): void {
  const key = `${manifest.apiVersion}/${manifest.kind}`;
  expect(manifest.metadata?.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  const model = MODELS[key];
  if (model) new model(manifest).validate();
  else if (CRD_SHAPES[key]) CRD_SHAPES[key](manifest);
  else throw new Error(`${key} ${manifest.metadata.name}: no schema for this kind (add it to MODELS or CRD_SHAPES)`);
}

// ---------------------------------------------------------------------------
// What the code reads
// ---------------------------------------------------------------------------

/** Variables read by name: `readXxx(env, 'NAME'…)`, `process.env.NAME`, `process.env['NAME']`. */
function variablesReadIn(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    for (const pattern of [/\(\s*env\s*,\s*'([A-Z][A-Z0-9_]+)'/g, /process\.env\.([A-Z][A-Z0-9_]+)/g, /process\.env\[\s*'([A-Z][A-Z0-9_]+)'\s*\]/g]) {
      for (const match of source.matchAll(pattern)) names.add(match[1]);
    }
  }
  return names;
}

/** Variables no deployment sets, and why. */
const NOT_DEPLOYED: Record<string, string> = {
  OAUTH_CLIENT_METADATA_LOOPBACK: 'a test switch, refused when NODE_ENV=production',
  WEBHOOKS_LOOPBACK: 'a test switch, refused when NODE_ENV=production',
};

/** Shared code (libs/, without the test helpers) plus the app's own folder. */
function variablesOf(app: 'todo-api' | 'feedback-export'): string[] {
  const shared = sourceFiles(join(ROOT, 'libs'), { skip: ['testing'] });
  const own = sourceFiles(join(ROOT, 'apps', app));
  return [...variablesReadIn([...shared, ...own])].filter((name) => !(name in NOT_DEPLOYED)).sort();
}

function byKind(manifests: Manifest[], kind: string): Manifest[] {
  return manifests.filter((manifest) => manifest.kind === kind);
}

function named(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}

const selects = (selector: Record<string, string>, labels: Record<string, string> | undefined) => Object.entries(selector).every(([key, value]) => labels?.[key] === value);

const APPS = [
  { name: 'todo-api', port: 3000 },
  { name: 'feedback-export', port: 3001 },
] as const;

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  const base = render(BASE);
  const production = render(PRODUCTION);

  it.each([
    ['base', base],
    ['production overlay, rendered', production],
  ] as const)('every document of the %s validates against its schema', (_label, manifests) => {
    expect(manifests.length).toBeGreaterThan(0);
    for (const manifest of manifests) validate(manifest);
  });

  it('the production overlay adds the namespace, the routes and the ServiceMonitor and pins the images', () => {
    expect(byKind(production, 'HTTPRoute').length).toBeGreaterThan(0);
    expect(byKind(production, 'ServiceMonitor')).toHaveLength(1);
    for (const manifest of production) if (manifest.kind !== 'Namespace') expect(manifest.metadata.namespace).toBe(named(production, 'Namespace', manifest.metadata.namespace ?? '?').metadata.name);
    for (const manifest of [...byKind(production, 'Deployment'), ...byKind(production, 'Job')]) {
      for (const container of podSpecOf(manifest).containers) expect(container.image).toMatch(/^[^:@]+\/[^:@]+(:[\w.-]+|@sha256:[0-9a-f]{64})$/);
    }
  });

  describe.each([
    ['base', base],
    ['production', production],
  ] as const)('%s', (_label, manifests) => {
    const config = named(manifests, 'ConfigMap', 'todo-feedback-config');

    it.each(APPS)('$name: the ConfigMap or the Deployment names every variable the code reads', ({ name }) => {
      const container = podSpecOf(named(manifests, 'Deployment', name)).containers[0];
      const fromConfigMaps = (container.envFrom ?? []).flatMap((source: any) => Object.keys(named(manifests, 'ConfigMap', source.configMapRef.name).data));
      const provided = new Set<string>([...fromConfigMaps, ...(container.env ?? []).map((entry: any) => entry.name)]);
      const missing = variablesOf(name).filter((variable) => !provided.has(variable));
      expect(missing).toEqual([]);
    });

    it.each(APPS)('$name: probes on /livez and /readyz, a grace period above the drain, locked-down container, resources', ({ name, port }) => {
      const deployment = named(manifests, 'Deployment', name);
      const pod = podSpecOf(deployment);
      const [container] = pod.containers;
      expect(container.ports).toEqual([{ name: 'http', containerPort: port, protocol: 'TCP' }]);
      expect(container.startupProbe.httpGet).toEqual({ path: '/livez', port: 'http' });
      expect(container.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'http' });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      const probes = readFileSync(join(ROOT, 'libs/common/src/health/probes.controller.ts'), 'utf8');
      expect(probes).toContain("@Get('livez')");
      expect(probes).toContain("@Get('readyz')");

      // SIGKILL only after the preStop pause and the whole drain (SHUTDOWN_GRACE_MS bounds every close step).
      const preStopSeconds = Number(container.lifecycle.preStop.exec.command.at(-1));
      const drainMs = Number(config.data.SHUTDOWN_GRACE_MS);
      expect(drainMs).toBeGreaterThan(0);
      expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(preStopSeconds * 1000 + drainMs);

      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(container.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
      // The read-only root filesystem has one writable data directory: DATA_DIR.
      const dataMount = container.volumeMounts.find((mount: any) => mount.mountPath === config.data.DATA_DIR);
      expect(pod.volumes.find((volume: any) => volume.name === dataMount?.name)?.emptyDir).toBeDefined();
      expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
      expect(container.resources.limits.memory).toMatch(/^\d+Mi$/);
    });

    it.each(APPS)('$name: the Service, PodDisruptionBudget and HorizontalPodAutoscaler select its pods', ({ name, port }) => {
      const deployment = named(manifests, 'Deployment', name);
      const podLabels = deployment.spec.template.metadata.labels;
      expect(selects(deployment.spec.selector.matchLabels, podLabels)).toBe(true);
      expect(deployment.spec.replicas).toBeUndefined(); // the HPA owns it
      const service = named(manifests, 'Service', name);
      expect(selects(service.spec.selector, podLabels)).toBe(true);
      expect(service.spec.ports).toEqual([{ name: 'http', port, targetPort: 'http', protocol: 'TCP' }]);
      const budget = named(manifests, 'PodDisruptionBudget', name);
      expect(selects(budget.spec.selector.matchLabels, podLabels)).toBe(true);
      const autoscaler = named(manifests, 'HorizontalPodAutoscaler', name);
      expect(autoscaler.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name });
      // Voluntary disruptions leave at least one pod serving.
      expect(autoscaler.spec.minReplicas).toBeGreaterThan(budget.spec.maxUnavailable);
    });

    it('the migration Job runs dist/apps/migrate.js from the todo-api image, and the apps leave migrations to it', () => {
      const job = named(manifests, 'Job', 'migrate');
      const [container] = podSpecOf(job).containers;
      expect(container.args).toEqual(['dist/apps/migrate.js']);
      expect(container.image).toBe(podSpecOf(named(manifests, 'Deployment', 'todo-api')).containers[0].image);
      expect(container.env.map((entry: any) => entry.name)).toEqual(expect.arrayContaining(['NODE_ENV', 'DATABASE_URL', 'DB_QUERY_TIMEOUT_MS']));
      expect(podSpecOf(job).restartPolicy).toBe('Never');
      expect(config.data.MIGRATE_AT_START).toBe('false');
      expect(existsSync(join(ROOT, 'apps', 'migrate.ts'))).toBe(true);
    });
  });

  it('HTTPRoutes: the nginx gateway’s routing (hosts from the public URLs, /todo and /feedback stripped), to existing Services and ports', () => {
    const config = named(production, 'ConfigMap', 'todo-feedback-config');
    const routes = byKind(production, 'HTTPRoute');
    const servicePort = (name: string) => named(production, 'Service', name).spec.ports[0].port;
    for (const route of routes) for (const rule of route.spec.rules) for (const backend of rule.backendRefs) expect(backend.port).toBe(servicePort(backend.name));

    const publicHost = { 'todo-api': new URL(config.data.PUBLIC_BASE_URL).hostname, 'feedback-export': new URL(config.data.FEEDBACK_PUBLIC_BASE_URL).hostname };
    const gatewayRoutes = readFileSync(join(ROOT, 'docker/nginx/gateway-routes.conf'), 'utf8');
    for (const { name } of APPS) {
      // Host route: everything on the app's public host, path unchanged.
      const hostRoute = routes.find((route) => (route.spec.hostnames ?? []).includes(publicHost[name]));
      expect(hostRoute?.spec.rules).toEqual([{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ name, port: servicePort(name) }] }]);
      // Prefix route on any host, the prefix cut as the gateway's rewrite does.
      const prefix = name === 'todo-api' ? '/todo' : '/feedback';
      expect(gatewayRoutes).toContain(`rewrite ^${prefix}(/.*)$ $1 break;`);
      const prefixRule = routes
        .filter((route) => !route.spec.hostnames)
        .flatMap((route) => route.spec.rules)
        .find((rule) => rule.matches[0].path.value === prefix);
      expect(prefixRule).toEqual({
        matches: [{ path: { type: 'PathPrefix', value: prefix } }],
        filters: [{ type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } } }],
        backendRefs: [{ name, port: servicePort(name) }],
      });
    }
  });

  it('the ServiceMonitor scrapes /metrics of both Services with the METRICS_TOKEN the apps read', () => {
    const [monitor] = byKind(production, 'ServiceMonitor');
    for (const { name } of APPS) {
      const service = named(production, 'Service', name);
      expect(selects(monitor.spec.selector.matchLabels, service.metadata.labels)).toBe(true);
      const [endpoint] = monitor.spec.endpoints;
      expect(service.spec.ports.map((port: any) => port.name)).toContain(endpoint.port);
      expect(endpoint.path).toBe('/metrics');
      const tokenEnv = podSpecOf(named(production, 'Deployment', name)).containers[0].env.find((entry: any) => entry.name === 'METRICS_TOKEN');
      expect(tokenEnv.valueFrom.secretKeyRef).toMatchObject({ name: endpoint.authorization.credentials.name, key: endpoint.authorization.credentials.key });
    }
  });
});

describe('docker/compose.yaml', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker', 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, any> };

  it('only the gateway publishes a port, so the apps scale (`--scale todo-api=3`)', () => {
    const published = Object.entries(compose.services)
      .filter(([, service]) => (service.ports ?? []).length > 0)
      .map(([name]) => name);
    expect(published).toEqual(['gateway']);
    for (const { name } of APPS) {
      expect(compose.services[name].container_name).toBeUndefined();
      expect(compose.services[name].networks).toEqual(['backend']); // no fixed address: the gateway's is the only one
    }
  });

  it('the migrate service runs the migrations once; the apps start after it succeeded', () => {
    const migrate = compose.services.migrate;
    expect(migrate.command).toEqual(['dist/apps/migrate.js']);
    expect(migrate.restart).toBe('no');
    expect(migrate.build.args.APP).toBe('todo-api');
    expect(migrate.image).toBe(compose.services['todo-api'].image);
    expect(migrate.depends_on.postgres.condition).toBe('service_healthy');
    for (const { name } of APPS) expect(compose.services[name].depends_on.migrate.condition).toBe('service_completed_successfully');
  });
});

describe('docker/Dockerfile and docker/node-entry.sh', () => {
  const dockerfile = readFileSync(join(ROOT, 'docker', 'Dockerfile'), 'utf8');

  it('is the only Dockerfile', () => {
    expect(existsSync(join(ROOT, 'docker', 'todo-api.Dockerfile'))).toBe(false);
    expect(existsSync(join(ROOT, 'docker', 'feedback-export.Dockerfile'))).toBe(false);
  });

  it('builds from a base pinned by digest, for the app named by ARG APP, as a non-root user', () => {
    const nodeImage = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
    expect(nodeImage).toMatch(/^node:24-bookworm-slim@sha256:[0-9a-f]{64}$/);
    const froms = dockerfile.split('\n').filter((line) => line.startsWith('FROM '));
    expect(froms.length).toBeGreaterThan(1);
    for (const line of froms) expect(line).toMatch(/^FROM \$\{NODE_IMAGE\} AS [a-z-]+$/);
    expect(dockerfile).toMatch(/^ARG APP$/m);
    expect(dockerfile).toMatch(/case "\$\{APP\}" in todo-api \| feedback-export\)/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK /m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node-entry"\]$/m);
  });

  it('installs no dev dependency: production dependencies, and swc alone for the build', () => {
    const installs = dockerfile.split('\n').filter((line) => /\bnpm (ci|install|i)\b/.test(line));
    expect(installs.length).toBeGreaterThan(0);
    for (const line of installs) expect(line).toMatch(/npm ci --omit=dev|npm install --no-audit --no-fund --ignore-scripts$/);
    // The tool install's package.json names @swc/cli and @swc/core only.
    const toolPackages = [...dockerfile.matchAll(/"(@[\w/.-]+)": pick\("\1"\)/g)].map((match) => match[1]);
    expect(toolPackages).toEqual(['@swc/cli', '@swc/core']);
    // The image carries this app's compiled code, libs without the test helpers, and the migrate entry point.
    expect(dockerfile).toContain('cp -R "dist/apps/${APP}" /out/dist/apps/');
    expect(dockerfile).toContain('rm -rf /out/dist/libs/testing');
    expect(dockerfile).toContain('COPY --from=build /out/dist ./dist');
  });

  it('node-entry gives V8’s old space 70 % of the memory limit (358 MiB of 512 MiB), nothing without a limit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'node-entry-'));
    try {
      writeFileSync(join(dir, 'limited'), '536870912\n');
      writeFileSync(join(dir, 'unlimited'), 'max\n');
      const heapWith = (file: string, env: Record<string, string> = {}) => {
        const result = spawnSync('sh', [join(ROOT, 'docker', 'node-entry.sh'), '-e', 'process.stdout.write(JSON.stringify(process.execArgv))'], {
          env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, MEMORY_LIMIT_FILES: join(dir, file), ...env },
          encoding: 'utf8',
        });
        expect(result.stderr).toBe('');
        return (JSON.parse(result.stdout) as string[]).filter((flag) => flag.startsWith('--max-'));
      };
      expect(heapWith('limited')).toEqual(['--max-semi-space-size=4', '--max-old-space-size=358']);
      expect(heapWith('limited', { NODE_HEAP_PERCENT: '50' })).toEqual(['--max-semi-space-size=4', '--max-old-space-size=256']);
      expect(heapWith('unlimited')).toEqual(['--max-semi-space-size=4']);
      // An operator's own heap size wins.
      expect(heapWith('limited', { NODE_OPTIONS: '--max-old-space-size=200' })).toEqual(['--max-semi-space-size=4']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
