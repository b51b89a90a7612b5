/** Languages an article can be written in: ISO 639-1 code -> English name. */
export const supportedLanguages: Readonly<Record<string, string>> = {
  ar: 'Arabic',
  cs: 'Czech',
  da: 'Danish',
  de: 'German',
  el: 'Greek',
  en: 'English',
  es: 'Spanish',
  fi: 'Finnish',
  fr: 'French',
  he: 'Hebrew',
  hi: 'Hindi',
  hu: 'Hungarian',
  id: 'Indonesian',
  it: 'Italian',
  ja: 'Japanese',
  ko: 'Korean',
  nl: 'Dutch',
  no: 'Norwegian',
  pl: 'Polish',
  pt: 'Portuguese',
  ro: 'Romanian',
  ru: 'Russian',
  sk: 'Slovak',
  sv: 'Swedish',
  th: 'Thai',
  tr: 'Turkish',
  uk: 'Ukrainian',
  vi: 'Vietnamese',
  zh: 'Chinese',
};

export function isSupportedLanguage(code: string): boolean {
  return Object.hasOwn(supportedLanguages, code);
}

export function listLanguages(): { code: string; name: string }[] {
  return Object.entries(supportedLanguages).map(([code, name]) => ({ code, name }));
}
