import type { Key, ReactNode } from "react";

export interface TableColumn<Row> {
  key: string;
  /** Plain text: it also labels the value when rows collapse into cards on small screens. */
  header: string;
  render(row: Row): ReactNode;
  /** Right-aligned action column; its header is announced but not shown on small screens. */
  end?: boolean;
}

export interface TableProps<Row> {
  caption: string;
  columns: ReadonlyArray<TableColumn<Row>>;
  rows: readonly Row[];
  rowKey(row: Row): Key;
  /** Greys out a row (e.g. a revoked token). */
  rowMuted?(row: Row): boolean;
}

/**
 * A data table whose rows turn into label/value cards below 720px. The explicit ARIA roles keep
 * the table semantics that some browsers drop once CSS changes the cells' display.
 */
export function Table<Row>({ caption, columns, rows, rowKey, rowMuted }: TableProps<Row>) {
  return (
    <div className="cs-table-wrap">
      <table className="cs-table" role="table">
        <caption className="cs-visually-hidden">{caption}</caption>
        <thead role="rowgroup">
          <tr role="row">
            {columns.map((column) => (
              <th key={column.key} scope="col" role="columnheader" className={column.end ? "cs-table__end" : undefined}>
                {column.end ? <span className="cs-visually-hidden">{column.header}</span> : column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {rows.map((row) => (
            <tr key={rowKey(row)} role="row" data-muted={rowMuted?.(row) ? "true" : undefined}>
              {columns.map((column) => (
                <td
                  key={column.key}
                  role="cell"
                  data-label={column.end ? "" : column.header}
                  className={column.end ? "cs-table__end" : undefined}
                >
                  {column.render(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
