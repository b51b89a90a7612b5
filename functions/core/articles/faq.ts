/** The FAQ section: one H2 in the article's language, then an H3 and a paragraph per pair. */
import { textToHtml } from '../html-safety';
import type { FaqItem } from './article-seo';

const FAQ_HEADINGS: Readonly<Record<string, string>> = {
  ar: 'الأسئلة الشائعة',
  cs: 'Často kladené otázky',
  da: 'Ofte stillede spørgsmål',
  de: 'Häufig gestellte Fragen',
  el: 'Συχνές ερωτήσεις',
  en: 'Frequently asked questions',
  es: 'Preguntas frecuentes',
  fi: 'Usein kysytyt kysymykset',
  fr: 'Questions fréquentes',
  he: 'שאלות נפוצות',
  hi: 'अक्सर पूछे जाने वाले प्रश्न',
  hu: 'Gyakran ismételt kérdések',
  id: 'Pertanyaan yang sering diajukan',
  it: 'Domande frequenti',
  ja: 'よくある質問',
  ko: '자주 묻는 질문',
  nl: 'Veelgestelde vragen',
  no: 'Ofte stilte spørsmål',
  pl: 'Najczęściej zadawane pytania',
  pt: 'Perguntas frequentes',
  ro: 'Întrebări frecvente',
  ru: 'Часто задаваемые вопросы',
  sk: 'Často kladené otázky',
  sv: 'Vanliga frågor',
  th: 'คำถามที่พบบ่อย',
  tr: 'Sıkça sorulan sorular',
  uk: 'Часті запитання',
  vi: 'Câu hỏi thường gặp',
  zh: '常见问题',
};

/** "Frequently asked questions" in the article's language (English for an unknown code). */
export function faqHeading(language: string): string {
  return FAQ_HEADINGS[language] ?? 'Frequently asked questions';
}

export function faqHtml(language: string, items: FaqItem[]): string {
  const pairs = items.map(
    (item) => `<h3>${textToHtml(item.question)}</h3>\n<p>${textToHtml(item.answer)}</p>`,
  );
  return [`<h2>${textToHtml(faqHeading(language))}</h2>`, ...pairs].join('\n');
}
