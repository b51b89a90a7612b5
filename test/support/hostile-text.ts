/**
 * A corpus of hostile text (what attackers and confused models send) and a checker that parses
 * HTML the way a browser would (htmlparser2) and lists everything in it that could run.
 */
import fc from 'fast-check';
import { Parser } from 'htmlparser2';

/** Hostile inputs: nested and encoded tags, entities, URLs, SVG/MathML, handlers, shortcodes, bad Unicode. */
export const HOSTILE_CORPUS: readonly string[] = [
  '<script>alert(1)</script>',
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  '&amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt;',
  '&#60;script&#62;alert(1)&#60;/script&#62;',
  '&#x3C;img src=x onerror=alert(1)&#x3E;',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<<script>script>alert(1)<</script>/script>',
  '<img src=x onerror=alert(1)>',
  '<IMG SRC="javascript:alert(1)">',
  '<a href="javascript:alert(1)">click</a>',
  '<a href="jav&#x09;ascript:alert(1)">tab</a>',
  '<a href=" JaVaScRiPt:alert(1)">case</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">data</a>',
  '<a href="vbscript:msgbox(1)">vb</a>',
  '<a href="https://ok.example/[gallery]">bracket link</a>',
  '<svg onload=alert(1)><circle r=1 /></svg>',
  '<svg><script>alert(1)</script></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<iframe src="https://evil.example/"></iframe>',
  '<object data="x.swf"></object><embed src="x.swf">',
  '<p onclick="alert(1)" style="background:url(javascript:alert(1))">handler</p>',
  '<div onmouseover=alert(1)>hover</div>',
  '<!-- <script>alert(1)</script> -->',
  '<!--><script>alert(1)</script>-->',
  '<![CDATA[<script>alert(1)</script>]]>',
  '<!-- wp:html --><script>alert(1)</script><!-- /wp:html -->',
  '<style>body{background:url("javascript:alert(1)")}</style>',
  '<form action="javascript:alert(1)"><button>go</button></form>',
  '<base href="javascript:/">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<template><script>alert(1)</script></template>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
  '[gallery ids="1,2,3"]',
  '[embed]https://evil.example/video[/embed]',
  '[caption id="x"]<img src=x onerror=alert(1)>[/caption]',
  '[[escaped]] [contact-form-7 id="1"] [ shortcode ]',
  '&#91;gallery&#93;',
  'Tom &amp; Jerry &copy; 2024 &notanentity; &#0; &#xD800;',
  'A < B > C && D',
  'Прывітанне <b>мир</b> 你好 مرحبا שלום — ñandú café',
  'paypal.com vs pаypal.com (Cyrillic а)',
  '\u202Egnp.exe\u202C right-to-left override',
  'lone \uD800 high and \uDC00 low surrogates',
  'NUL\u0000 BEL\u0007 ESC\u001B[31m red DEL\u007F C1\u0085',
  'tab\tnew\nline\r\nend',
  '\uFEFFbyte order mark and zero\u200Bwidth',
];

const CONTROL = /\p{Cc}/u;

/** One hostile string: corpus entries and arbitrary (also ill-formed) Unicode, mixed. */
export const hostileText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_CORPUS) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
      { weight: 1, arbitrary: fc.constantFrom('<', '>', '&', '[', ']', '"', "'", '=', '/', ' ', '\uD800') },
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((pieces) => pieces.join(''));

const ALLOWED_ARTICLE_TAGS = new Set(['h2', 'h3', 'p', 'ul', 'ol', 'li', 'em', 'strong', 'blockquote', 'a']);
const EXECUTABLE_ELEMENTS = new Set(['script', 'style', 'iframe', 'object', 'embed', 'svg', 'math']);
const DANGEROUS_SCHEME = /^(javascript|data|vbscript):/;

/**
 * Everything in `html` that could run or carry markup where it is shown: elements outside the
 * article allow-list (script, style, iframe, object, embed, svg, math among them), `on*`
 * attributes, javascript:/data:/vbscript: URLs, comments, processing instructions, a `[` that
 * could start a WordPress shortcode, lone surrogates and control characters. Empty when safe.
 */
export function executableFindings(html: string): string[] {
  const findings: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (EXECUTABLE_ELEMENTS.has(name)) findings.push(`executable element <${name}>`);
        else if (!ALLOWED_ARTICLE_TAGS.has(name)) findings.push(`element outside the allow-list <${name}>`);
        for (const [attribute, value] of Object.entries(attributes)) {
          if (attribute.startsWith('on')) findings.push(`event handler ${attribute}`);
          // Browsers ignore whitespace and control characters inside a scheme.
          const squeezed = value.replace(/[\s\p{Cc}]/gu, '').toLowerCase();
          if (DANGEROUS_SCHEME.test(squeezed)) findings.push(`dangerous URL in ${attribute}: ${value}`);
          if (attribute !== 'href') findings.push(`attribute outside the allow-list ${attribute}`);
        }
      },
      oncomment() {
        findings.push('comment');
      },
      onprocessinginstruction(name) {
        findings.push(`processing instruction ${name}`);
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  if (html.includes('[')) findings.push('a [ that could start a shortcode');
  findings.push(...textFindings(html));
  return findings;
}

/** Bad Unicode and control characters (tab and line breaks allowed) in any text. */
export function textFindings(text: string): string[] {
  const findings: string[] = [];
  if (!text.isWellFormed()) findings.push('lone surrogate');
  if (CONTROL.test(text.replace(/[\t\n\r]/g, ''))) findings.push('control character');
  return findings;
}

/** What is wrong with a plain-text field (title, keyword, heading): markup, bad Unicode, controls. */
export function plainTextFindings(text: string): string[] {
  const findings = textFindings(text);
  if (text.includes('<') || text.includes('>')) findings.push('angle bracket');
  if (/[\t\n\r]/.test(text)) findings.push('line break');
  return findings;
}
