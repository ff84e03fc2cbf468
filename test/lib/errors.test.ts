/** A raw file's error message names the file escaped (lib/errors.ts). */
import { describe, expect, it } from 'vitest';
import { RawFormatError } from '../../lib/errors.ts';

describe('RawFormatError', () => {
  it('shows a file or record name holding a line break or an escape sequence escaped: it cannot write a line of its own', () => {
    const error = new RawFormatError('nvd/evil\n✓ publish: fake.json', 'CVE-1\u001b[2K', 'malformed JSON');
    expect(error.message).toBe('nvd/evil\\u000a✓ publish: fake.json: record CVE-1\\u001b[2K: malformed JSON');
    expect(error.message.split('\n')).toHaveLength(1);
    // The fields keep the names as they are, for code that opens the file.
    expect(error.file).toBe('nvd/evil\n✓ publish: fake.json');
  });
});
