import { describe, expect, it } from 'vitest';
import {
  HclEvalError,
  Unknown,
  evaluateExpression,
  evaluateExpressionSafe,
  evaluateJsonSafe,
  evaluateLocals,
  parseExpression,
  type HclFunction,
  type Scope,
  type Value,
} from '../../../discover/hcl/index.js';
import { failure, run, runJson, scopeOf, plain } from './helpers.js';

const local = { env: 'dev', region: 'us-east-1', list: ['a', 'b', 'c'], map: { b: 2, a: 1 }, n: 3, yes: true };

describe('literals and operators', () => {
  it('evaluates primitives', () => {
    expect(run('42')).toBe(42);
    expect(run('1.5e2')).toBe(150);
    expect(run('true')).toBe(true);
    expect(run('null')).toBeNull();
    expect(run('"text"')).toBe('text');
  });

  it('follows HCL precedence: * over +, comparison over &&, && over ||', () => {
    expect(run('1 + 2 * 3')).toBe(7);
    expect(run('(1 + 2) * 3')).toBe(9);
    expect(run('10 - 4 - 3')).toBe(3);
    expect(run('7 % 4 * 2')).toBe(6);
    expect(run('1 < 2 && 3 > 4 || true')).toBe(true);
    expect(run('false || true && false')).toBe(false);
    expect(run('1 + 1 == 2')).toBe(true);
    expect(run('-2 * -3')).toBe(6);
    expect(run('!true == false')).toBe(true);
  });

  it('converts numeric strings for arithmetic but never for ==', () => {
    expect(run('"5" + 1')).toBe(6);
    expect(run('"1" == 1')).toBe(false);
    expect(run('1 == 1.0')).toBe(true);
    expect(run('[1, "a"] == [1, "a"]')).toBe(true);
    expect(run('{a = 1} != {a = 2}')).toBe(true);
    expect(run('null == null')).toBe(true);
  });

  it('rejects bad operands with a message naming the operand', () => {
    const error = failure(() => run('local.env + 1', { local }));
    expect(error.message).toContain('operator "+" needs a number, but local.env is "dev"');
    expect(error.reason).toBe('type-mismatch');
    // As in OpenTofu: x / 0 is an infinity, 0 / 0 an error, x % 0 is x.
    expect(failure(() => run('0 / 0')).message).toContain('cannot divide zero by zero');
    expect(run('tostring(1 / 0)')).toBe('+Inf');
    expect(run('5 % 0')).toBe(5);
    expect(failure(() => run('!"maybe"')).message).toContain('must be a bool');
  });

  it('short-circuits && and || (the right side is not evaluated when the left decides)', () => {
    expect(run('false && local.missing', { local })).toBe(false);
    expect(run('true || local.missing', { local })).toBe(true);
    expect(() => run('true && local.missing', { local })).toThrow(HclEvalError);
  });

  it('drops an error on the left of && and || when the right side decides (as OpenTofu does)', () => {
    expect(run('(index(["a"], "b") == 1) || true')).toBe(true);
    expect(run('(index(["a"], "b") == 1) && false')).toBe(false);
    expect(failure(() => run('(index(["a"], "b") == 1) || false')).message).toContain('index()');
    expect(failure(() => run('local.missing && true', { local })).reason).toBe('unknown-variable');
  });

  it('refuses to index a set, as HCL does', () => {
    expect(failure(() => run('toset(["a"])[0]')).message).toContain('it is a set, whose elements have no index');
    expect(run('tolist(toset(["a"]))[0]')).toBe('a');
  });

  it('iterates a set with the element as the key', () => {
    expect(run('{ for i, s in toset(["b", "a"]) : "k${i}" => s }')).toEqual({ ka: 'a', kb: 'b' });
    expect(run('[for i, s in toset(["b", "a"]) : i]')).toEqual(['a', 'b']);
  });

  it('unifies with the shape of a branch not taken even when one of its items fails (as OpenTofu does)', () => {
    // The true branch's object has attributes k0 and k1 (of unknown type): the results unify as a map of strings.
    expect(run('false ? { k0 = 255, k1 = index(["a"], "b") } : { k0 = 0.1, k1 = 1e3, k2 = "t" }')).toEqual({
      k0: '0.1',
      k1: '1000',
      k2: 't',
    });
    // A branch that fails as a whole imposes no type.
    expect(run('jsonencode(false ? index(["a"], "b") : { k0 = 0.1, k1 = 1e3 })')).toBe('{"k0":0.1,"k1":1000}');
  });

  it('evaluates only the chosen branch of a conditional', () => {
    expect(run('local.env == "dev" ? "../dev-vpc" : local.nope', { local })).toBe('../dev-vpc');
    expect(run('local.yes ? 1 : 2', { local })).toBe(1);
    expect(run('"true" ? 1 : 2')).toBe(1);
    expect(failure(() => run('null ? 1 : 2')).message).toContain('must be a bool');
    expect(run('false ? 1 : true ? 2 : 3')).toBe(2);
  });
});

describe('templates', () => {
  it('interpolates with string conversion of numbers and bools', () => {
    expect(run('"${local.env}/vpc"', { local })).toBe('dev/vpc');
    expect(run('"n=${local.n} ok=${local.yes} f=${1.5}"', { local })).toBe('n=3 ok=true f=1.5');
    expect(run('"x${0.1 + 0.2}"')).toBe('x0.3');
  });

  it('keeps the type of a template that is a single interpolation', () => {
    expect(run('"${local.list}"', { local })).toEqual(['a', 'b', 'c']);
    expect(run('"${local.n}"', { local })).toBe(3);
  });

  it('refuses null and collections inside a longer template', () => {
    expect(failure(() => run('"x-${null}"')).message).toContain('it is null');
    expect(failure(() => run('"x-${local.list}"', { local })).message).toContain('use jsonencode() or join()');
  });

  it('handles directives, escapes and strip markers', () => {
    expect(run('"%{ if local.yes }on%{ else }off%{ endif }"', { local })).toBe('on');
    expect(run('"%{ for i, v in local.list }${i}${v},%{ endfor }"', { local })).toBe('0a,1b,2c,');
    expect(run('"%{ for k, v in local.map }${k}=${v};%{ endfor }"', { local })).toBe('a=1;b=2;');
    expect(run('"$${literal} %%{also}"')).toBe('${literal} %{also}');
    expect(run('"a \\"q\\" \\\\ \\u00e9 \\n"')).toBe('a "q" \\ é \n');
    expect(run('"  x  ${~ "y" ~}  z  "')).toBe('  xyz  ');
    expect(run('"%{ if true ~}   kept %{~ endif }!"')).toBe('kept!');
  });

  it('evaluates heredocs, with <<- removing the common indentation', () => {
    expect(run('<<EOT\nhello ${local.env}\n  two\nEOT', { local })).toBe('hello dev\n  two\n');
    expect(run('<<-EOT\n    a\n      b\n    EOT', { local })).toBe('a\n  b\n');
    expect(run('<<EOT\n${local.n}\nEOT', { local })).toBe('3\n');
  });
});

describe('collections, traversals and splats', () => {
  const vars = {
    local: {
      ...local,
      users: [
        { name: 'ann', tags: ['x'] },
        { name: 'bob', tags: ['y', 'z'] },
      ],
      single: { name: 'solo' },
      nothing: null,
    },
  };

  it('builds tuples and objects, with = or : and computed keys', () => {
    expect(run('[1, "two", local.env]', vars)).toEqual([1, 'two', 'dev']);
    expect(run('{ a = 1, "b" = 2, (local.env) = 3, c: 4 }', vars)).toEqual({ a: 1, b: 2, dev: 3, c: 4 });
    expect(run('{\n  a = 1\n  b = [\n    2,\n  ]\n}')).toEqual({ a: 1, b: [2] });
    expect(run('{ "${local.env}-x" = true }', vars)).toEqual({ 'dev-x': true });
  });

  it('indexes tuples and objects, including the legacy .0 form', () => {
    expect(run('local.list[1]', vars)).toBe('b');
    expect(run('local.list.0', vars)).toBe('a');
    expect(run('local.map["b"]', vars)).toBe(2);
    expect(run('local.users[1].tags[0]', vars)).toBe('y');
    expect(run('local.list["2"]', vars)).toBe('c');
  });

  it('splats over tuples, a single object and null', () => {
    expect(run('local.users[*].name', vars)).toEqual(['ann', 'bob']);
    expect(run('local.users.*.name', vars)).toEqual(['ann', 'bob']);
    expect(run('local.users[*].tags[0]', vars)).toEqual(['x', 'y']);
    // An attribute-only splat stops at the index: [0] applies to the result.
    expect(run('local.users.*.tags[0]', vars)).toEqual(['x']);
    expect(run('local.single[*].name', vars)).toEqual(['solo']);
    expect(run('local.nothing[*].name', vars)).toEqual([]);
  });

  it('evaluates for expressions over tuples and objects (objects in key order)', () => {
    expect(run('[for s in local.list : upper(s) if s != "b"]', vars)).toEqual(['A', 'C']);
    expect(run('[for i, s in local.list : "${i}:${s}"]', vars)).toEqual(['0:a', '1:b', '2:c']);
    expect(run('[for k, v in local.map : k]', vars)).toEqual(['a', 'b']);
    expect(plain(run('{for u in local.users : u.name => length(u.tags)}', vars))).toEqual({ ann: 1, bob: 2 });
    expect(run('{for s in ["a", "b", "a"] : s => s...}')).toEqual({ a: ['a', 'a'], b: ['b'] });
  });

  it('rejects duplicate keys in a for expression unless grouped', () => {
    expect(failure(() => run('{for s in ["a", "a"] : s => 1}')).message).toContain('duplicate key "a"');
  });

  it('expands the last call argument with ...', () => {
    expect(run('max(local.nums...)', { local: { nums: [3, 9, 4] } })).toBe(9);
    expect(run('concat(["x"], local.lists...)', { local: { lists: [['y'], ['z']] } })).toEqual(['x', 'y', 'z']);
    expect(failure(() => run('max(local.n...)', { local })).message).toContain('must be a tuple or list');
  });
});

describe('names that do not exist are errors, with suggestions', () => {
  it('suggests the closest local', () => {
    const error = failure(() => run('local.regoin', { local }));
    expect(error.message).toBe('unknown variable "local.regoin"; did you mean "local.region"?');
    expect(error.reason).toBe('unknown-variable');
  });

  it('names the object a missing attribute was looked up in', () => {
    const include = { root: { locals: { region: 'eu-west-1', account: '1' } } };
    const error = failure(() => run('include.root.locals.foo', { include }));
    expect(error.message).toBe('attribute "foo" not found in include.root.locals (it has account, region)');
    expect(error.reason).toBe('missing-attribute');
    expect(failure(() => run('include.root.locals.regoin', { include })).message).toContain('did you mean "region"?');
  });

  it('reports unknown root variables and functions', () => {
    expect(failure(() => run('locals.env', { local })).message).toBe(
      'unknown variable "locals"; did you mean "local"?',
    );
    const fn = failure(() => run('dirnam("a/b")'));
    expect(fn.message).toBe('unknown function "dirnam"; did you mean "dirname"?');
    expect(fn.reason).toBe('unknown-function');
  });

  it('explains attribute access on the wrong type and out-of-range indexes', () => {
    expect(failure(() => run('local.list.name', { local })).message).toContain('it is a tuple; use an index');
    expect(failure(() => run('local.nothing.x', { local: { nothing: null } })).message).toContain('it is null');
    const range = failure(() => run('local.list[5]', { local }));
    expect(range.message).toContain('index 5 is out of range for local.list (3 elements)');
    expect(range.reason).toBe('invalid-index');
  });

  it('points at the failing part of the expression', () => {
    const source = 'upper(local.regoin)';
    const parsed = parseExpression(source);
    if (!parsed.ok) throw new Error('parse failed');
    const result = evaluateExpressionSafe(parsed.ast, scopeOf({ local }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toBe('unknown-variable');
    expect(source.slice(result.error.range?.start, result.error.range?.end)).toBe('local.regoin');
  });
});

describe('Unknown values', () => {
  const cmd = new Unknown('run_cmd() needs execution', 'run_cmd');
  const functions: Record<string, HclFunction> = { run_cmd: () => cmd };

  it('propagates through operators, templates, calls and traversals', () => {
    const vars = {
      dependency: { vpc: { outputs: new Unknown('dependency outputs are not available', 'dependency.vpc') } },
    };
    for (const source of [
      'run_cmd("x") + 1',
      '"${run_cmd("x")}/vpc"',
      'upper(run_cmd("x"))',
      'run_cmd("x").field[0]',
      '-run_cmd("x")',
      'run_cmd("x") == "a"',
      '[for x in run_cmd("x") : x]',
      '"%{ if run_cmd("x") }a%{ endif }"',
    ]) {
      expect(run(source, {}, functions), source).toBe(cmd);
    }
    const outputs = run('dependency.vpc.outputs.vpc_id', vars);
    expect(outputs).toBeInstanceOf(Unknown);
    expect((outputs as Unknown).origin).toBe('dependency.vpc');
  });

  it('lets a known condition pick a branch, and known operands decide && and ||', () => {
    expect(run('true ? "known" : run_cmd("x")', {}, functions)).toBe('known');
    expect(run('run_cmd("x") ? 1 : 2', {}, functions)).toBe(cmd);
    expect(run('run_cmd("x") && false', {}, functions)).toBe(false);
    expect(run('run_cmd("x") || true', {}, functions)).toBe(true);
    expect(run('run_cmd("x") || false', {}, functions)).toBe(cmd);
  });

  it('keeps Unknowns inside collections where the rest is still usable', () => {
    const value = run('{ a = run_cmd("x"), b = "known" }', {}, functions);
    expect((value as Record<string, Value>).b).toBe('known');
    expect(plain(run('length([run_cmd("x"), 1])', {}, functions))).toBe(2);
    expect(run('jsonencode([run_cmd("x")])', {}, functions)).toBe(cmd);
  });

  it('makes an object with an unknown key unknown', () => {
    expect(run('{ (run_cmd("x")) = 1 }', {}, functions)).toBe(cmd);
  });

  it('try() returns the first known fallback; can() reports unknown as unknown', () => {
    expect(run('try(run_cmd("x"), "fallback")', {}, functions)).toBe('fallback');
    expect(run('try(local.missing, run_cmd("x"), "last")', { local }, functions)).toBe('last');
    expect(run('try(run_cmd("x"), local.missing)', { local }, functions)).toBe(cmd);
    expect(run('try(local.missing.deeper, local.env)', { local })).toBe('dev');
    expect(failure(() => run('try(local.a, local.b)', { local })).message).toMatch(
      /^try\(\): no argument could be evaluated/,
    );
    expect(run('can(local.env)', { local })).toBe(true);
    expect(run('can(local.missing)', { local })).toBe(false);
    expect(run('can(run_cmd("x"))', {}, functions)).toBe(cmd);
  });

  it('turns a thrown Unknown into the call result', () => {
    const thrower: HclFunction = () => {
      // Terragrunt functions may throw an Unknown to stop; the evaluator turns it into the call's value.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw new Unknown('sops needs keys', 'sops_decrypt_file');
    };
    const value = run('try(sops("f"), "plain")', {}, { sops: thrower });
    expect(value).toBe('plain');
    expect(run('sops("f")', {}, { sops: thrower })).toBeInstanceOf(Unknown);
  });

  it('passes foreign exceptions through, even inside try()', () => {
    class NeedFiles extends Error {}
    const needs: HclFunction = () => {
      throw new NeedFiles('parse me first');
    };
    expect(() => run('try(read("x"), "fallback")', {}, { read: needs })).toThrow(NeedFiles);
  });

  it('calls functions marked acceptsUnknown with the Unknown', () => {
    const seen: Value[] = [];
    const spy: HclFunction = Object.assign(
      (args: Value[]) => {
        seen.push(...args);
        return 'called';
      },
      { acceptsUnknown: true },
    );
    expect(run('spy(run_cmd("x"))', {}, { ...functions, spy })).toBe('called');
    expect(seen).toEqual([cmd]);
  });
});

describe('scope', () => {
  it('evaluates lazy variables once, on first use', () => {
    let calls = 0;
    const variables = {
      expensive: () => {
        calls++;
        return { value: 'computed' };
      },
    };
    const scope: Scope = scopeOf(variables);
    const parsed = parseExpression('"${expensive.value}-${expensive.value}"');
    if (!parsed.ok) throw new Error('parse failed');
    expect(evaluateExpression(parsed.ast, scope)).toBe('computed-computed');
    expect(evaluateExpression(parsed.ast, scope)).toBe('computed-computed');
    expect(calls).toBe(1);
    expect(
      run('1 + 1', {
        unused: () => {
          throw new Error('must not run');
        },
      }),
    ).toBe(2);
  });

  it('passes the function name and scope to functions and reports misuse cleanly', () => {
    const echo: HclFunction = (args, call) =>
      `${call.name}:${args.length}:${Object.keys(call.scope.variables).join(',')}`;
    expect(run('echo(1, 2)', { a: 1 }, { echo })).toBe('echo:2:a');
    const error = failure(() => run('join(",")'));
    expect(error.message).toBe('join(): takes at least 2 arguments, got 1');
    expect(error.reason).toBe('invalid-call');
  });

  it('gives a Result from the safe variants', () => {
    expect(evaluateJsonSafe('${local.env}', scopeOf({ local }))).toEqual({ ok: true, value: 'dev' });
    const bad = evaluateJsonSafe('${local.nope}', scopeOf({ local }));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.reason).toBe('unknown-variable');
    const syntax = evaluateJsonSafe('${local.}', scopeOf({ local }));
    expect(syntax.ok).toBe(false);
    if (!syntax.ok) expect(syntax.reason).toBe('parse-error');
  });
});

describe('evaluateJson (hcl2json conventions)', () => {
  const vars = { local };

  it('returns literal strings untouched, without parsing', () => {
    expect(runJson('../vpc')).toBe('../vpc');
    expect(runJson('a\\b "quoted" 100%')).toBe('a\\b "quoted" 100%');
  });

  it('evaluates ${...} strings, keeping the type of a whole-string interpolation', () => {
    expect(runJson('${local.list}', vars)).toEqual(['a', 'b', 'c']);
    expect(runJson('${local.env}/vpc', vars)).toBe('dev/vpc');
    expect(runJson('${local.env}${local.n}', vars)).toBe('dev3');
    expect(runJson('${dirname("/a/b/root.hcl")}/${local.env}/vpc', vars)).toBe('/a/b/dev/vpc');
  });

  it('decodes $${ and %%{ and treats backslashes literally', () => {
    expect(runJson('cost $${notinterp}')).toBe('cost ${notinterp}');
    expect(runJson('percent %%{ x }')).toBe('percent %{ x }');
    expect(runJson('$$${x}')).toBe('$${x}');
    expect(runJson('a\\${local.env}', vars)).toBe('a\\dev');
  });

  it('evaluates directives as hcl2json re-serialises them', () => {
    expect(runJson('x-%{if local.yes}a%{else}b%{endif}', vars)).toBe('x-a');
    expect(runJson('%{for x in local.list}${x},%{endfor}', vars)).toBe('a,b,c,');
  });

  it('evaluates arrays, objects and object keys', () => {
    expect(runJson([1, '${local.env}', { '${local.env}-key': '${local.n}', plain: true }], vars)).toEqual([
      1,
      'dev',
      { 'dev-key': 3, plain: true },
    ]);
    expect(runJson({ '${(local.env)}': 1, '1': 'one', '$${x}': 2 }, vars)).toEqual({ dev: 1, '1': 'one', '${x}': 2 });
  });

  it('evaluates source with comments and heredocs inside a wrapped expression', () => {
    expect(runJson('${concat(\n  ["a"], # one\n  ["b"] // two\n  /* three */\n)}')).toEqual(['a', 'b']);
    expect(runJson('${yamldecode(<<EOT\na: 1\nb: ${local.env}\nEOT\n)}', vars)).toEqual({ a: 1, b: 'dev' });
  });

  it('reports a malformed template as a parse-error HclEvalError', () => {
    const error = failure(() => runJson('${local.env'));
    expect(error.reason).toBe('parse-error');
    expect(error.message).toContain('cannot parse "${local.env"');
  });
});

describe('evaluateLocals', () => {
  const makeScope =
    (extra: Record<string, Value> = {}) =>
    (locals: Record<string, Value>): Scope =>
      scopeOf({ local: locals, ...extra });

  it('resolves locals in any order, lazily and once', () => {
    let calls = 0;
    const count: HclFunction = () => {
      calls++;
      return 'counted';
    };
    const locals = evaluateLocals(
      {
        path: '${local.root}/${local.env}/vpc',
        env: 'dev',
        root: '${dirname("/repo/live/root.hcl")}',
        tracked: '${count()}',
        twice: '${local.tracked}-${local.tracked}',
      },
      (l) => ({ variables: { local: l }, functions: { ...scopeOf().functions, count } }),
    );
    expect(locals.path).toBe('/repo/live/dev/vpc');
    expect(calls).toBe(0);
    expect(locals.twice).toBe('counted-counted');
    expect(calls).toBe(1);
    expect(Object.keys(locals).sort()).toEqual(['env', 'path', 'root', 'tracked', 'twice']);
  });

  it('detects cycles and names the chain', () => {
    const locals = evaluateLocals(
      { a: '${local.b}', b: '${upper(local.c)}', c: '${local.a}', ok: 'fine' },
      makeScope(),
    );
    const error = failure(() => locals.a);
    expect(error.message).toBe('cycle among locals: local.a -> local.b -> local.c -> local.a');
    expect(error.reason).toBe('cycle');
    expect(locals.ok).toBe('fine');
  });

  it('detects a local that refers to itself', () => {
    const locals = evaluateLocals({ me: '${local.me}' }, makeScope());
    expect(failure(() => locals.me).message).toBe('cycle among locals: local.me -> local.me');
  });

  it('says which local failed, and only fails where a broken local is used', () => {
    const locals = evaluateLocals(
      { good: 'x', bad: '${local.regoin}', region: 'r', uses: '${local.bad}' },
      makeScope(),
    );
    expect(locals.good).toBe('x');
    expect(failure(() => locals.uses).message).toBe(
      'local.uses: local.bad: unknown variable "local.regoin"; did you mean "local.region"?',
    );
  });

  it('can be spread or iterated like a plain object once everything evaluates', () => {
    const locals = evaluateLocals({ a: '1', b: '${local.a}-2' }, makeScope());
    expect({ ...locals }).toEqual({ a: '1', b: '1-2' });
  });
});
