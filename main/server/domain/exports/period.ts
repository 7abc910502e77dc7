// A period's visits as a spreadsheet (CSV by csv-stringify, XLSX by exceljs's streaming writer): one
// row per filtered visit with its overview figures, latest first. The visits are read in keyset pages
// and written as they come, so 10,000 visits never sit in memory at once; an aborted signal (the
// client went away) stops the reading at the next page. An empty period is a valid file with its
// header row alone.
import { PassThrough, Readable } from 'node:stream';
import { once } from 'node:events';
import { stringify } from 'csv-stringify';
// exceljs is loaded when a spreadsheet is asked for (0.25 s of every start otherwise).
import type ExcelJSModule from 'exceljs';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import type { OverviewFilters } from '../overview/filters.js';
import { visitsOf, type VisitRow } from '../overview/queries.js';

export const EXPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Visits read per query. */
const PAGE = 500;

/** The columns, in order: the API's field names (GET /overview/visits/), so a sheet compares with the API. */
export const EXPORT_COLUMNS: { key: keyof VisitRow; header: string; width: number }[] = [
  { key: 'visit', header: 'visit', width: 38 },
  { key: 'name', header: 'name', width: 20 },
  { key: 'shop', header: 'shop', width: 14 },
  { key: 'shop_name', header: 'shop_name', width: 24 },
  { key: 'agent', header: 'agent', width: 14 },
  { key: 'started_date', header: 'started_date', width: 26 },
  { key: 'review', header: 'review', width: 12 },
  { key: 'osa', header: 'osa', width: 8 },
  { key: 'planogram', header: 'planogram', width: 10 },
  { key: 'facings', header: 'facings', width: 8 },
  { key: 'price', header: 'price', width: 8 },
  { key: 'photos', header: 'photos', width: 8 },
  { key: 'unknown_facings', header: 'unknown_facings', width: 10 },
  { key: 'flagged', header: 'flagged', width: 8 },
  { key: 'unjoined', header: 'unjoined', width: 8 },
  { key: 'retaken', header: 'retaken', width: 8 },
  { key: 'missing', header: 'missing', width: 8 },
  { key: 'priority', header: 'priority', width: 8 },
  { key: 'reasons', header: 'reasons', width: 40 },
];

/** The filtered visits, page by page, until the end or the signal. */
export async function* periodVisits(db: Kysely<Database>, f: OverviewFilters, signal?: AbortSignal): AsyncGenerator<VisitRow> {
  let after: { started_date: string; id: string } | undefined;
  for (;;) {
    if (signal?.aborted) return;
    const { results } = await visitsOf(db, f, { after, limit: PAGE });
    for (const row of results) yield row;
    if (results.length < PAGE) return;
    const last = results.at(-1)!;
    after = { started_date: last.started_date, id: last.visit };
  }
}

const cell = (row: VisitRow, key: keyof VisitRow) => {
  const v = row[key];
  return Array.isArray(v) ? v.join(' ') : v;
};

export function exportPeriod(
  db: Kysely<Database>,
  f: OverviewFilters,
  format: ExportFormat,
  signal?: AbortSignal,
): { stream: Readable; contentType: string } {
  const rows = periodVisits(db, f, signal);
  if (format === 'csv') {
    const csv = stringify({ header: true, columns: EXPORT_COLUMNS.map((c) => ({ key: c.key, header: c.header })) });
    const source = Readable.from((async function* () {
      for await (const row of rows) yield Object.fromEntries(EXPORT_COLUMNS.map((c) => [c.key, cell(row, c.key)]));
    })());
    source.on('error', (e) => csv.destroy(e));
    signal?.addEventListener('abort', () => source.destroy());
    return { stream: source.pipe(csv), contentType: 'text/csv; charset=utf-8' };
  }
  const out = new PassThrough();
  void (async () => {
    const ExcelJS = ((await import('exceljs')) as unknown as { default: typeof ExcelJSModule }).default;
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
    const sheet = book.addWorksheet('Visits');
    sheet.columns = EXPORT_COLUMNS.map((c) => ({ key: c.key, header: c.header, width: c.width }));
    sheet.getRow(1).font = { bold: true };
    sheet.getRow(1).commit();
    let n = 0;
    for await (const row of rows) {
      sheet.addRow(Object.fromEntries(EXPORT_COLUMNS.map((c) => [c.key, cell(row, c.key)]))).commit();
      // Lets the client read what is written before more is made.
      if (++n % 200 === 0 && out.writableNeedDrain) await Promise.race([once(out, 'drain'), once(out, 'close')]);
    }
    if (signal?.aborted) return void out.destroy();
    sheet.commit();
    await book.commit();
  })().catch((e: unknown) => out.destroy(e as Error));
  return { stream: out, contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' };
}
