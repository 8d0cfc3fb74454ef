// Every call into a port goes through the one boundary (src/internal/port-call.ts), enforced:
// the type checker finds each call in src/ whose signature is declared by a port (the
// coordination ports a user or omnimedia/redis implements, the proxy's hooks, the Redis driver),
// and the test fails when that call is not lexically inside the thunk handed to the boundary
// (callPort, firePort, a PortGuard's call/fire/keep, or the Redis Outage's run/fire/probe, which
// are built on callPort). A new feature that calls a store directly fails here.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const at = (file: string) => relative(ROOT, file).replaceAll('\\', '/');

/** Where ports are declared: a call whose signature is declared inside one of these is a port call. */
const PORTS: Record<string, (declaration: ts.Node) => boolean> = {
  // Every interface and type of the coordination ports, but the listener a bus calls back (the SDK's own function).
  'src/coordination/ports.ts': (node) => !enclosing(node, (n) => ts.isTypeAliasDeclaration(n) && n.name.text === 'TaskListener'),
  // The proxy's hooks: the app's code.
  'src/proxy/options.ts': (node) => enclosing(node, (n) => ts.isPropertySignature(n) && ['authorize', 'policy', 'onSubmitted'].includes(n.name.getText())) !== undefined,
  // A batch's journal: a file, Redis, or the caller's own store (BatchJournal).
  'src/coordination/batch-journal.ts': (node) => enclosing(node, (n) => ts.isInterfaceDeclaration(n) && n.name.text === 'BatchJournal') !== undefined,
  // The Redis driver: the caller's Redis client.
  'src/redis/driver.ts': (node) => enclosing(node, (n) => ts.isInterfaceDeclaration(n) && n.name.text === 'RedisDriver') !== undefined,
};

/** The boundary: calls whose thunk argument (by position) runs the port call inside it. */
const BOUNDARY: Record<string, Record<string, number>> = {
  'src/internal/port-call.ts': { callPort: 0, firePort: 0, call: 0, fire: 0, keep: 1 },
  'src/redis/outage.ts': { run: 0, fire: 0, probe: 0 },
};

/**
 * Calls into the Redis driver that are not lexically inside a boundary thunk, each reached only
 * through one, and why. A new one fails the test until it is placed inside one or listed here.
 */
const REDIS_ADAPTERS: Record<string, string> = {
  // The `command` port every Redis class is given (and the budget's): its callers run it inside Outage.run/fire thunks.
  'src/redis/coordination.ts#command': 'the command port; its callers run inside Outage.run/fire',
  // The probe's commands: FailoverClients.probe runs probeRedis inside callPort.
  'src/redis/health.ts#probeRedis': 'called only inside callPort by FailoverClients.probe',
  // Journal writes: JournalPorts.replicated, called by RedisJournal inside Outage.run/fire; the count inside Outage.fire.
  'src/redis/replication.ts#write': 'JournalPorts.replicated, called inside Outage.run/fire',
  'src/redis/replication.ts#plain': 'the same write without WAIT',
  // The subscription: a connection of its own, whose failure (ready rejects) starts the outage.
  'src/redis/events.ts#subscribe': 'a pub/sub connection: ready rejects into outage.fail',
};

function enclosing(node: ts.Node, test: (node: ts.Node) => boolean): ts.Node | undefined {
  for (let n: ts.Node | undefined = node; n; n = n.parent) if (test(n)) return n;
  return undefined;
}

/** The name of the function a node is in, for REDIS_ADAPTERS: a method, a function, or the property/variable an arrow is assigned to. */
function functionName(node: ts.Node): string {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if ((ts.isMethodDeclaration(n) || ts.isFunctionDeclaration(n) || ts.isGetAccessorDeclaration(n)) && n.name) return n.name.getText().replace(/^#/, '');
    if ((ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && (ts.isVariableDeclaration(n.parent) || ts.isPropertyAssignment(n.parent))) return n.parent.name.getText();
  }
  return '?';
}

const program = ts.createProgram(sourceFiles(SRC), {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.Preserve,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  noEmit: true,
  strict: true,
  skipLibCheck: true,
  types: ['node'],
  lib: ['lib.es2024.d.ts', 'lib.dom.d.ts'],
});
const checker = program.getTypeChecker();

/** The boundary call (and its thunk argument's position) that a function node is handed to, if any. */
function boundaryOf(fn: ts.Node): string | undefined {
  const call = fn.parent;
  if (!call || !ts.isCallExpression(call)) return undefined;
  const position = call.arguments.indexOf(fn as ts.Expression);
  const declaration = checker.getResolvedSignature(call)?.declaration;
  if (!declaration) return undefined;
  const file = at(declaration.getSourceFile().fileName);
  const name = (declaration as ts.FunctionLikeDeclaration).name?.getText();
  const wanted = name === undefined ? undefined : BOUNDARY[file]?.[name];
  return wanted !== undefined && wanted === position ? `${file}#${name}` : undefined;
}

interface PortCall {
  where: string;
  port: string;
  call: string;
  guardedBy: string | undefined;
}

function portCalls(): PortCall[] {
  const found: PortCall[] = [];
  for (const source of program.getSourceFiles()) {
    const file = at(source.fileName);
    // The Redis driver itself is the adapter: inside it, calls are the client's own (and the SDK's listener).
    if (!file.startsWith('src/') || file === 'src/redis/driver.ts') continue;
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node)) {
        const declaration = checker.getResolvedSignature(node)?.declaration;
        const declaredIn = declaration && at(declaration.getSourceFile().fileName);
        if (declaration && declaredIn && PORTS[declaredIn]?.(declaration)) {
          const thunk = enclosing(node.parent, (n) => (ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && boundaryOf(n) !== undefined);
          found.push({
            where: `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} (${functionName(node)})`,
            port: `${declaredIn}`,
            call: node.getText().split('\n')[0]!.slice(0, 80),
            guardedBy: thunk && boundaryOf(thunk),
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('every call into a port goes through the one boundary', () => {
  const calls = portCalls();

  it('finds the port calls (the walk itself works: the poller, the upload cache, the submission, the delivery, the proxy, Redis)', () => {
    const files = new Set(calls.map((c) => c.where.split(':')[0]));
    for (const file of ['src/waiting/poller.ts', 'src/waiting/scheduler.ts', 'src/waiting/durations.ts', 'src/uploads/cache.ts', 'src/resources/submission.ts', 'src/resources/tasks.ts', 'src/callbacks/delivery.ts', 'src/proxy/create-proxy.ts', 'src/waiting/wait-ports.ts'])
      expect(files, file).toContain(file);
    expect(calls.length).toBeGreaterThan(30);
  });

  it('each one is inside a boundary thunk (or is a listed Redis adapter, itself reached only through one)', () => {
    const unguarded = calls.filter((c) => !c.guardedBy && !(c.port === 'src/redis/driver.ts' && `${c.where.split(':')[0]}#${c.where.match(/\((.*)\)$/)?.[1]}` in REDIS_ADAPTERS));
    expect(unguarded.map((c) => `${c.where}: ${c.call}`)).toEqual([]);
  });

  it('the listed Redis adapters all still exist (the list is not stale)', () => {
    const seen = new Set(calls.filter((c) => c.port === 'src/redis/driver.ts' && !c.guardedBy).map((c) => `${c.where.split(':')[0]}#${c.where.match(/\((.*)\)$/)?.[1]}`));
    expect(Object.keys(REDIS_ADAPTERS).filter((adapter) => !seen.has(adapter))).toEqual([]);
  });
});
