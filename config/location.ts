/**
 * A place in a file, shared by every layer that reports one: configuration errors, discovery problems and graph
 * edges. It lives in config/, the layer every other may import, so config/ needs nothing from engine/.
 */

/** Where something was written: 1-based line and column. */
export interface SourceLocation {
  readonly file: string;
  readonly line: number;
  readonly column?: number;
}
