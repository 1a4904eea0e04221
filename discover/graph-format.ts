/** The output formats of `platctl graph`: named by the verb (cli/graph.ts) and drawn by discover/graph-render.ts. */
export const GRAPH_FORMATS = ['text', 'json', 'dot', 'mermaid'] as const;
export type GraphFormat = (typeof GRAPH_FORMATS)[number];
