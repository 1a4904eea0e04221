/**
 * Parses a Prometheus text exposition with a real parser: the Python `prometheus_client` library's
 * `text_string_to_metric_families` (installed by `.ci/run`; `pip install prometheus_client==0.26.0`). Tests that need
 * it skip, saying why, only when python3 or the library is missing on a developer machine.
 */
import { execa } from 'execa';

/** One sample: its metric name, labels and value. */
export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Prints every sample as one JSON line; a parse error exits non-zero with Python's message. */
const SCRIPT = `
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        out.append({"name": s.name, "labels": s.labels, "value": s.value, "type": family.type})
print(json.dumps(out))
`;

async function probe(): Promise<string | undefined> {
  try {
    await execa('python3', ['-c', 'import prometheus_client.parser'], { timeout: 30_000 });
    return undefined;
  } catch {
    return 'python3 with prometheus_client is missing (pip install prometheus_client==0.26.0; .ci/run installs it)';
  }
}

/** Why the parser cannot run here, or undefined when it can. */
export const PROM_PARSER_MISSING = await probe();

/** The samples of `text`, parsed by prometheus_client; throws with the parser's message when the text is invalid. */
export async function parseProm(text: string): Promise<(PromSample & { readonly type: string })[]> {
  const run = await execa('python3', ['-c', SCRIPT], { input: text, timeout: 30_000 });
  return JSON.parse(run.stdout) as (PromSample & { readonly type: string })[];
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when none. */
export function sampleValue(
  samples: readonly PromSample[],
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
