// The dashboard's CSV reading for the contacts import (dashboard/src/csv.ts, on csv-parse): RFC 4180 quoting, line numbers
// that point into the file, optional header in any column order.
import { describe, expect, it } from "vitest";
import { contactsFromCsv, CsvError, parseCsv } from "../../dashboard/src/csv.js";

describe("parseCsv", () => {
  it("reads quoted fields with commas, doubled quotes and line breaks, and keeps each record's first line", () => {
    const text = 'a,b\r\n"x, y","say ""hi"""\n"multi\nline",z\n\n  \nlast,one';
    expect(parseCsv(text)).toEqual([
      { line: 1, fields: ["a", "b"] },
      { line: 2, fields: ["x, y", 'say "hi"'] },
      { line: 3, fields: ["multi\nline", "z"] },
      { line: 7, fields: ["last", "one"] },
    ]);
  });

  it("ignores a byte order mark and a final line break, keeps empty fields", () => {
    expect(parseCsv("\uFEFFa,,c\n")).toEqual([{ line: 1, fields: ["a", "", "c"] }]);
  });

  it("names the line where the file ends inside an unclosed quote", () => {
    expect(() => parseCsv('ok\n"never closed\nmore')).toThrow(new CsvError(3, "a quoted field is never closed"));
  });
});

describe("contactsFromCsv", () => {
  it("reads phone,firstName[,group] without a header", () => {
    expect(contactsFromCsv("+14155550101,Ada,VIP\n+14155550102,,\n+14155550103")).toEqual({
      header: false,
      rows: [
        { line: 1, phone: "+14155550101", firstName: "Ada", group: "VIP", timeZone: null },
        { line: 2, phone: "+14155550102", firstName: null, group: null, timeZone: null },
        { line: 3, phone: "+14155550103", firstName: null, group: null, timeZone: null },
      ],
    });
  });

  it("takes the columns from a header in any order and case", () => {
    expect(contactsFromCsv("Group,Phone,First Name\nVIP, +1 415 555 0101 ,Ada\n")).toEqual({
      header: true,
      rows: [{ line: 2, phone: "+1 415 555 0101", firstName: "Ada", group: "VIP", timeZone: null }],
    });
  });

  it("reads a timeZone column, by position or by its header", () => {
    expect(contactsFromCsv("+14155550101,Ada,VIP,America/Chicago").rows[0]).toMatchObject({ timeZone: "America/Chicago" });
    expect(contactsFromCsv("time_zone,phone\nEurope/Berlin,+4915112345678").rows).toEqual([
      { line: 2, phone: "+4915112345678", firstName: null, group: null, timeZone: "Europe/Berlin" },
    ]);
  });

  it("refuses a header with an unknown column", () => {
    expect(() => contactsFromCsv("phone,email\n+14155550101,a@b.c")).toThrow(/unknown column "email"/);
  });
});
