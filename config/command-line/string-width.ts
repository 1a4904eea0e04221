/**
 * The width of a line of yargs' help, bundled in place of the `string-width` package (scripts/bundle-deps.ts).
 * `string-width` measures every line with Unicode segmentation and an emoji table: 100 ms and more of each
 * `platctl --help`. platctl's help is plain ASCII (colour codes at most), so its width is its length without them.
 */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

export default function stringWidth(text: string): number {
  return text.replace(ANSI, '').length;
}
