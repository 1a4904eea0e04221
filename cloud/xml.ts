/**
 * A small XML reader for AWS REST-XML answers (Route 53). It builds an element tree and ignores what those answers
 * never carry meaningfully (attributes, namespaces, processing instructions). Not a general XML parser: no DTDs,
 * and malformed input yields a best-effort tree rather than an error, which callers treat as "field missing".
 */

export interface XmlElement {
  /** Local name, without any namespace prefix. */
  readonly name: string;
  readonly children: XmlElement[];
  /** Concatenated text content directly inside this element, entities decoded. */
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, body: string) => {
    if (body.startsWith('#x')) return String.fromCodePoint(parseInt(body.slice(2), 16));
    if (body.startsWith('#')) return String.fromCodePoint(parseInt(body.slice(1), 10));
    return ENTITIES[body] ?? whole;
  });
}

function localName(qualified: string): string {
  const colon = qualified.indexOf(':');
  return colon === -1 ? qualified : qualified.slice(colon + 1);
}

/** Parses `xml` into a tree under a synthetic root element named `#document`. */
export function parseXml(xml: string): XmlElement {
  const root: XmlElement = { name: '#document', children: [], text: '' };
  const stack: XmlElement[] = [root];
  let i = 0;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const top = stack[stack.length - 1] ?? root;
    if (lt === -1) {
      top.text += decode(xml.slice(i));
      break;
    }
    if (lt > i) top.text += decode(xml.slice(i, lt));
    if (xml.startsWith('<!--', lt)) {
      const end = xml.indexOf('-->', lt + 4);
      i = end === -1 ? xml.length : end + 3;
    } else if (xml.startsWith('<![CDATA[', lt)) {
      const end = xml.indexOf(']]>', lt + 9);
      top.text += xml.slice(lt + 9, end === -1 ? xml.length : end);
      i = end === -1 ? xml.length : end + 3;
    } else if (xml.startsWith('<?', lt) || xml.startsWith('<!', lt)) {
      const end = xml.indexOf('>', lt);
      i = end === -1 ? xml.length : end + 1;
    } else if (xml.startsWith('</', lt)) {
      const end = xml.indexOf('>', lt);
      const name = localName(xml.slice(lt + 2, end === -1 ? xml.length : end).trim());
      // Pop to the matching element; a stray end tag is ignored.
      for (let depth = stack.length - 1; depth > 0; depth -= 1) {
        if (stack[depth]?.name === name) {
          stack.length = depth;
          break;
        }
      }
      i = end === -1 ? xml.length : end + 1;
    } else {
      const end = findTagEnd(xml, lt + 1);
      const inner = xml.slice(lt + 1, end);
      const selfClosing = inner.endsWith('/');
      const name = localName((/^[^\s/>]+/.exec(inner) ?? [''])[0]);
      const element: XmlElement = { name, children: [], text: '' };
      top.children.push(element);
      if (!selfClosing) stack.push(element);
      i = end + 1;
    }
  }
  return root;
}

/** Index of the `>` closing a start tag, skipping quoted attribute values. */
function findTagEnd(xml: string, from: number): number {
  let quote: string | undefined;
  for (let i = from; i < xml.length; i += 1) {
    const c = xml[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i;
  }
  return xml.length;
}

/** The first descendant-or-self path match: `child(el, 'A', 'B')` is `el > A > B`. */
export function child(element: XmlElement | undefined, ...path: string[]): XmlElement | undefined {
  let current = element;
  for (const name of path) {
    current = current?.children.find((c) => c.name === name);
    if (!current) return undefined;
  }
  return current;
}

/** Every element at `path` under `element` (the last step may match many). */
export function children(element: XmlElement | undefined, ...path: string[]): XmlElement[] {
  if (!element) return [];
  if (path.length === 0) return [element];
  const parent = child(element, ...path.slice(0, -1));
  const last = path[path.length - 1];
  return parent ? parent.children.filter((c) => c.name === last) : [];
}

/** Trimmed text at `path`, or undefined. */
export function text(element: XmlElement | undefined, ...path: string[]): string | undefined {
  const found = child(element, ...path);
  return found ? found.text.trim() : undefined;
}
