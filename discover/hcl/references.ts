/**
 * Static analysis of expressions: which variables (as traversal paths) and functions they use, without
 * evaluating anything. Lets discovery say "config_path reads dependency.vpc.outputs" or skip work for values that
 * reference nothing.
 */
import type { Expression, TemplatePart } from './ast.js';
import { parseTemplate } from './parser.js';

export interface References {
  /** Traversal paths, as far as they are static: `local.env`, `include.root.locals.region`, `dependency.vpc`. */
  readonly variables: readonly string[];
  /** Function names called, `try` and `can` included. */
  readonly functions: readonly string[];
}

/** What an expression refers to. For-expression variables are not reported. */
export function expressionReferences(ast: Expression): References {
  const variables = new Set<string>();
  const functions = new Set<string>();
  walk(ast, new Set(), variables, functions);
  return { variables: [...variables].sort(), functions: [...functions].sort() };
}

/**
 * What an hcl2json value refers to (strings parsed as templates, recursively through arrays and objects).
 * Strings that do not parse are skipped: evaluation reports them.
 */
export function jsonReferences(value: unknown): References {
  const variables = new Set<string>();
  const functions = new Set<string>();
  const visit = (item: unknown): void => {
    if (typeof item === 'string') {
      if (!item.includes('{')) return;
      const parsed = parseTemplate(item);
      if (parsed.ok) walk(parsed.ast, new Set(), variables, functions);
    } else if (Array.isArray(item)) {
      item.forEach(visit);
    } else if (item && typeof item === 'object') {
      for (const [key, inner] of Object.entries(item as Record<string, unknown>)) {
        visit(key);
        visit(inner);
      }
    }
  };
  visit(value);
  return { variables: [...variables].sort(), functions: [...functions].sort() };
}

/**
 * The static path of a traversal (`a.b.c`, with `a["b"]` read as `a.b`), cut at the first dynamic step, or undefined
 * when the chain is not rooted at a free variable. Dynamic index keys are walked separately.
 */
function traversalPath(
  node: Expression,
  bound: ReadonlySet<string>,
  visitKey: (key: Expression) => void,
): { path: string; complete: boolean } | undefined {
  if (node.type === 'variable') return bound.has(node.name) ? undefined : { path: node.name, complete: true };
  if (node.type === 'getattr') {
    const base = traversalPath(node.object, bound, visitKey);
    if (!base?.complete) return base;
    return { path: `${base.path}.${node.name}`, complete: true };
  }
  if (node.type === 'index') {
    const base = traversalPath(node.object, bound, visitKey);
    const key = node.key;
    const staticKey = key.type === 'literal' && typeof key.value === 'string' ? key.value : undefined;
    if (key.type !== 'literal') visitKey(key);
    if (!base?.complete) return base;
    return staticKey === undefined
      ? { path: base.path, complete: false }
      : { path: `${base.path}.${staticKey}`, complete: true };
  }
  return undefined;
}

/** The innermost object of a traversal chain (what the chain starts from). */
function chainRoot(node: Expression): Expression {
  return node.type === 'getattr' || node.type === 'index' ? chainRoot(node.object) : node;
}

function walk(node: Expression, bound: ReadonlySet<string>, variables: Set<string>, functions: Set<string>): void {
  const recurse = (child: Expression, names: ReadonlySet<string> = bound): void =>
    walk(child, names, variables, functions);
  switch (node.type) {
    case 'literal':
    case 'splat-item':
      return;
    case 'variable':
    case 'getattr':
    case 'index': {
      const traversal = traversalPath(node, bound, (key) => recurse(key));
      if (traversal) variables.add(traversal.path);
      else if (node.type !== 'variable') recurse(chainRoot(node));
      return;
    }
    case 'template':
      walkParts(node.parts, bound, variables, functions);
      return;
    case 'tuple':
      node.items.forEach((item) => recurse(item));
      return;
    case 'object':
      for (const { key, value } of node.items) {
        if (key.kind === 'expression') recurse(key.expression);
        recurse(value);
      }
      return;
    case 'splat':
      recurse(node.source);
      recurse(node.each);
      return;
    case 'call':
      functions.add(node.name);
      node.args.forEach((arg) => recurse(arg));
      return;
    case 'unary':
      recurse(node.operand);
      return;
    case 'binary':
      recurse(node.left);
      recurse(node.right);
      return;
    case 'conditional':
      recurse(node.condition);
      recurse(node.trueResult);
      recurse(node.falseResult);
      return;
    case 'paren':
      recurse(node.expression);
      return;
    case 'for': {
      recurse(node.collection);
      const inner = new Set(bound);
      inner.add(node.valueVar);
      if (node.keyVar !== undefined) inner.add(node.keyVar);
      if (node.key) recurse(node.key, inner);
      recurse(node.value, inner);
      if (node.condition) recurse(node.condition, inner);
      return;
    }
  }
}

function walkParts(
  parts: readonly TemplatePart[],
  bound: ReadonlySet<string>,
  variables: Set<string>,
  functions: Set<string>,
): void {
  for (const part of parts) {
    switch (part.kind) {
      case 'literal':
        break;
      case 'interpolation':
        walk(part.expression, bound, variables, functions);
        break;
      case 'if':
        walk(part.condition, bound, variables, functions);
        walkParts(part.then, bound, variables, functions);
        walkParts(part.else, bound, variables, functions);
        break;
      case 'for': {
        walk(part.collection, bound, variables, functions);
        const inner = new Set(bound);
        inner.add(part.valueVar);
        if (part.keyVar !== undefined) inner.add(part.keyVar);
        walkParts(part.body, inner, variables, functions);
        break;
      }
    }
  }
}
