import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { GATEWAY_ERRORS } from './common/errors/gateway-error-code';
import { MESSAGES_COMPATIBILITY } from './formats/anthropic-messages/messages-compatibility';
import { COMPATIBILITY_MATRIX } from './formats/chat-completions/compatibility-matrix';
import { RESPONSES_COMPATIBILITY } from './formats/responses/compatibility-matrix';

// The README publishes the error codes, docs/compatibility.md the compatibility matrix of each
// endpoint; these tests keep the published tables equal to the tables the code runs on.

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
const compatibility = readFileSync(join(__dirname, '..', 'docs', 'compatibility.md'), 'utf8');

function tableRows(markdown: string, marker: string): string[][] {
  const start = markdown.indexOf(`<!-- ${marker}:start -->`);
  const end = markdown.indexOf(`<!-- ${marker}:end -->`);
  expect(start).toBeGreaterThan(-1);
  return markdown
    .slice(start, end)
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('| ') && !line.startsWith('| Status') && !line.startsWith('| Field'),
    )
    .map((line) =>
      line
        .slice(2, -2)
        .split(/ (?<!\\)\| /)
        .map((cell) => cell.trim().replace(/^`|`$/g, '').replace(/\\\|/g, '|')),
    );
}

describe('README', () => {
  it('lists every error code with its status and type', () => {
    const rows = tableRows(readme, 'error-codes').map(([status, code, type]) => ({
      status: Number(status),
      code,
      type,
    }));
    const expected = Object.entries(GATEWAY_ERRORS).map(([code, entry]) => ({
      status: entry.status,
      code,
      type: entry.type,
    }));
    expect(rows).toEqual(expected);
  });
});

describe('docs/compatibility.md', () => {
  it.each([
    ['/v1/chat/completions', 'compatibility-matrix', COMPATIBILITY_MATRIX],
    ['/v1/messages', 'messages-compatibility', MESSAGES_COMPATIBILITY],
    ['/v1/responses', 'responses-compatibility', RESPONSES_COMPATIBILITY],
  ] as const)('publishes the %s table the gateway applies', (_endpoint, marker, table) => {
    const expected = Object.entries(
      table as Record<string, { handling: string; note: string }>,
    ).map(([field, entry]) => [field, entry.handling, entry.note]);
    expect(tableRows(compatibility, marker)).toEqual(expected);
  });
});

// README.md keeps the quick start and the tables above; the rest lives in docs/*.md, linked from
// the README's contents. These tests keep that set of pages navigable: every relative link names
// an existing file, and every `#anchor` a heading of the page it points to.

const root = join(__dirname, '..');
const docsDir = join(root, 'docs');
const pages = [
  join(root, 'README.md'),
  ...readdirSync(docsDir)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(docsDir, name)),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (inFence || !heading) continue;
    const slug = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Targets of inline links and images, outside code fences and code spans. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1]);
}

describe('README and docs/', () => {
  it.each(pages.map((page) => [relative(root, page), page]))(
    '%s: relative links and anchors resolve',
    (_name, page) => {
      const broken: string[] = [];
      for (const target of linkTargets(readFileSync(page, 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...
        const [path, anchor] = target.split('#');
        const file = path ? resolve(dirname(page), path) : page;
        if (!existsSync(file)) broken.push(`${target}: no such file`);
        else if (
          anchor &&
          file.endsWith('.md') &&
          !headingAnchors(readFileSync(file, 'utf8')).has(anchor)
        ) {
          broken.push(`${target}: no such heading`);
        }
      }
      expect(broken).toEqual([]);
    },
  );

  it('links every page of docs/ from the README', () => {
    const linked = new Set(linkTargets(readme).map((target) => target.split('#')[0]));
    const unlinked = pages
      .slice(1)
      .map((page) => relative(root, page))
      .filter((page) => !linked.has(page));
    expect(unlinked).toEqual([]);
  });

  it.each(pages.map((page) => [relative(root, page), page]))(
    '%s: stays under 400 lines, so that a reader can use it',
    (_name, page) => {
      expect(readFileSync(page, 'utf8').split('\n').length).toBeLessThanOrEqual(400);
    },
  );

  it('keeps the two quick-start commands', () => {
    expect(readme).toContain('```sh\nnpm ci && npm start\n```');
    expect(readme).toContain('```sh\nnpm test\n```');
  });
});
