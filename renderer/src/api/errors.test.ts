import { describe, expect, it } from 'vitest';
import { ApiError, describeError, parseErrorBody } from './errors';

describe('parseErrorBody', () => {
  it('keeps a DRF detail as the message, with no field errors', () => {
    const e = parseErrorBody(404, { detail: 'Not found.' }, '404');
    expect(e.message).toBe('Not found.');
    expect(e.fieldErrors).toEqual({});
    expect(e.status).toBe(404);
  });

  it('keys validation messages by the field the API names', () => {
    const e = parseErrorBody(400, { name: ['This field may not be blank.'], size_x_mm: ['A valid number is required.'] }, '400');
    expect(e.fieldErrors).toEqual({ name: ['This field may not be blank.'], size_x_mm: ['A valid number is required.'] });
    expect(e.message).toBe('name: This field may not be blank.; size_x_mm: A valid number is required.');
  });

  it('puts non_field_errors in the message, not at a field', () => {
    const e = parseErrorBody(400, { non_field_errors: ['Ids must differ.'], sku: 'Invalid pk "x" - object does not exist.' }, '400');
    expect(e.message).toBe('Ids must differ.');
    expect(e.fieldErrors).toEqual({ sku: ['Invalid pk "x" - object does not exist.'] });
  });

  it('flattens nested serializer errors under their field', () => {
    const e = parseErrorBody(400, { attributes: { colour: ['Not a string.'] } }, '400');
    expect(e.fieldErrors.attributes).toEqual(['colour: Not a string.']);
  });

  it('falls back to the status line for bodies that are not DRF errors', () => {
    expect(parseErrorBody(502, '<html>bad gateway</html>', '502 Bad Gateway').message).toBe('502 Bad Gateway');
    expect(parseErrorBody(500, null, '500 Internal Server Error').message).toBe('500 Internal Server Error');
    expect(parseErrorBody(400, ['Only one image.'], '400').message).toBe('Only one image.');
  });
});

describe('describeError', () => {
  it('says when the server could not be reached', () => {
    expect(describeError(new ApiError(0, 'Failed to fetch'))).toMatch(/cannot be reached/);
    expect(describeError(new ApiError(401, 'Invalid token.'))).toBe('Invalid token.');
    expect(describeError(new Error('boom'))).toBe('boom');
  });
});
