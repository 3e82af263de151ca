import { describe, expect, it } from '@jest/globals';
import { csvCell, csvLine, CSV_HEADER } from './feedback-csv.js';

describe('feedback CSV cells', () => {
  it('quotes every text and doubles its quotes, keeping commas and line breaks inside the cell', () => {
    expect(csvCell('He said "hi", then left\nagain')).toBe('"He said ""hi"", then left\nagain"');
    expect(csvLine(['a', 3, null])).toBe('"a","3",\r\n');
  });

  it.each(['=HYPERLINK("http://evil.example")', '+1+2', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd'])('neutralises a formula: %j', (text) => {
    expect(csvCell(text)).toBe(`"'${text.replace(/"/g, '""')}"`);
  });

  it('leaves numbers (a rating) and ordinary text alone', () => {
    expect(csvCell(5)).toBe('"5"');
    expect(csvCell('Great 5-star shop')).toBe('"Great 5-star shop"');
  });

  it('names the reporter context and the signed reporter columns', () => {
    expect(CSV_HEADER).toBe('"id","createdAt","type","status","rating","message","pageUrl","browser","os","viewport","language","referrer","reporterId","reporterEmail","reporterName"\r\n');
  });
});
