import { describe, expect, it } from 'vitest';
import { expressionReferences, jsonReferences, parseExpression } from '../../../discover/hcl/index.js';

function refs(source: string) {
  const parsed = parseExpression(source);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return expressionReferences(parsed.ast);
}

describe('expressionReferences', () => {
  it('collects static traversal paths and called functions', () => {
    expect(refs('"${dirname(find_in_parent_folders("root.hcl"))}/${include.root.locals.region}/${local.env}"')).toEqual(
      {
        variables: ['include.root.locals.region', 'local.env'],
        functions: ['dirname', 'find_in_parent_folders'],
      },
    );
  });

  it('stops a path at a dynamic step and still walks the index expression', () => {
    expect(refs('dependency.vpc.outputs[local.key].id').variables).toEqual(['dependency.vpc.outputs', 'local.key']);
    expect(refs('local.m["a"][0]').variables).toEqual(['local.m.a']);
    expect(refs('local.users[*].name').variables).toEqual(['local.users']);
    expect(refs('f(x)[local.i].y').variables).toEqual(['local.i', 'x']);
  });

  it('does not report for-expression variables', () => {
    expect(refs('[for k, v in local.m : "${k}=${v.x}" if v != var.skip]').variables).toEqual(['local.m', 'var.skip']);
    expect(refs('"%{ for x in local.l }${x}${local.sep}%{ endfor }"').variables).toEqual(['local.l', 'local.sep']);
  });

  it('walks every expression kind', () => {
    expect(refs('try(a ? -b : !c, { (d) = e }, g(f...), (g2) + h == i)')).toEqual({
      variables: ['a', 'b', 'c', 'd', 'e', 'f', 'g2', 'h', 'i'],
      functions: ['g', 'try'],
    });
  });
});

describe('jsonReferences', () => {
  it('walks hcl2json output, keys included, skipping literals and unparsable strings', () => {
    const block = {
      config_path: '${dirname(local.root)}/vpc',
      mock_outputs: { '${local.key}': 'plain', id: '${dependency.net.outputs.id}' },
      list: ['${values.path}', 'literal', '${broken'],
    };
    expect(jsonReferences(block)).toEqual({
      variables: ['dependency.net.outputs.id', 'local.key', 'local.root', 'values.path'],
      functions: ['dirname'],
    });
  });
});
