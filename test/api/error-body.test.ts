import {describe, expect, it} from 'vitest'

import {markupOf, pageText, readErrorBody, short, type ErrorBodyReading} from '../../src/api/error-body.js'
import {operationOf} from '../../src/api/operations.js'

const NGINX_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n'
const LONG = `${'The upstream service did not answer in time and the request was abandoned by the gateway. '.repeat(3)}`

describe('readErrorBody: the message of an error answer, whatever its shape', () => {
  const cases: [string, unknown, number, ErrorBodyReading][] = [
    // JSON shapes.
    [
      "the contract's body",
      {statusCode: 400, error: 'Bad Request', message: '2 items are invalid', details: [{path: '0.a', message: 'x'}]},
      400,
      {message: '2 items are invalid', statusText: 'Bad Request', details: [{path: '0.a', message: 'x'}]},
    ],
    ['message alone', {message: 'Key revoked'}, 401, {message: 'Key revoked', statusText: 'Unauthorized'}],
    [
      'a body of no known shape, shown with its secrets masked',
      {ok: false, token: 'tk_live_9f8e7d6c5b4a', apiKey: 'whatever-it-is'},
      409,
      {message: 'HTTP 409 Conflict: {"ok":false,"token":"****5b4a","apiKey":"****t-is"}', statusText: 'Conflict'},
    ],
    [
      'message as a list (NestJS)',
      {statusCode: 400, message: ['material must be a string', 'quantity must be positive'], error: 'Bad Request'},
      400,
      {message: 'material must be a string; quantity must be positive', statusText: 'Bad Request'},
    ],
    [
      'error as a string',
      {error: 'material not offered'},
      400,
      {message: 'material not offered', statusText: 'Bad Request'},
    ],
    [
      'error.message',
      {error: {message: 'Material ZX is not offered', code: 'E_MATERIAL'}},
      400,
      {message: 'Material ZX is not offered', statusText: 'Bad Request'},
    ],
    [
      'errors[] of objects, one',
      {errors: [{message: 'Material ZX is not offered', field: 'material'}]},
      422,
      {
        message: 'Material ZX is not offered',
        statusText: 'Unprocessable Entity',
        details: [{path: 'material', message: 'Material ZX is not offered'}],
      },
    ],
    [
      'errors[] of strings, joined',
      {errors: ['quantity is required', 'material is required']},
      422,
      {message: 'quantity is required; material is required', statusText: 'Unprocessable Entity'},
    ],
    [
      'errors[] long: the first and a count',
      {errors: ['a is required', 'b is required', 'c is required', 'd is required', 'e is required']},
      422,
      {message: 'a is required (and 4 more)', statusText: 'Unprocessable Entity'},
    ],
    [
      'errors[] with detail and a JSON pointer (JSON:API)',
      {errors: [{status: '422', detail: 'must be positive', source: {pointer: '/data/quantity'}}]},
      422,
      {
        message: 'must be positive',
        statusText: 'Unprocessable Entity',
        details: [{path: 'data.quantity', message: 'must be positive'}],
      },
    ],
    [
      'errors as a field map (Rails, Laravel)',
      {message: 'The given data was invalid.', errors: {email: ['is taken'], name: 'is required'}},
      422,
      {
        message: 'The given data was invalid.',
        statusText: 'Unprocessable Entity',
        details: [
          {path: 'email', message: 'is taken'},
          {path: 'name', message: 'is required'},
        ],
      },
    ],
    [
      'RFC 9457 problem details: detail, with the title after the status',
      {
        type: 'https://errors.example.com/material',
        title: 'Invalid material',
        detail: 'ZX is not offered',
        status: 400,
      },
      400,
      {message: 'ZX is not offered', statusText: 'Invalid material'},
    ],
    [
      'a problem with a title only',
      {type: 'about:blank', title: 'Forbidden', status: 403},
      403,
      {message: 'Forbidden', statusText: 'Forbidden'},
    ],
    [
      "OAuth's error and error_description",
      {error: 'invalid_token', error_description: 'The access token expired'},
      401,
      {message: 'The access token expired', statusText: 'invalid_token'},
    ],
    [
      'error that only repeats the reason phrase',
      {error: 'Not Found'},
      404,
      {message: 'HTTP 404 Not Found: {"error":"Not Found"}', statusText: 'Not Found'},
    ],
    [
      'a fault (API gateways)',
      {fault: {faultstring: 'Rate limit quota violation'}},
      429,
      {message: 'Rate limit quota violation', statusText: 'Too Many Requests'},
    ],
    [
      'a bare list of errors',
      [{message: 'one'}, {message: 'two'}],
      400,
      {message: 'one; two', statusText: 'Bad Request'},
    ],
    [
      'JSON without any message: the status and a short excerpt',
      {code: 17, retry: false},
      400,
      {message: 'HTTP 400 Bad Request: {"code":17,"retry":false}', statusText: 'Bad Request'},
    ],
    [
      'white space in a message is one line',
      {message: '  line one\n  line two  '},
      400,
      {message: 'line one line two', statusText: 'Bad Request'},
    ],
    // Pages and text.
    [
      "nginx's 502 page: the status, its reason and the page's own line",
      NGINX_502,
      502,
      {message: 'HTTP 502 Bad Gateway, an HTML page: "nginx/1.25.3"'},
    ],
    [
      'a page with words of its own, scripts and styles left out',
      '<!DOCTYPE html><html><head><title>Maintenance</title><style>p{color:red}</style><script>var x = 1</script></head><body><h1>We&#39;ll be back</h1><p>Back at 14:00 &amp; later</p></body></html>',
      503,
      {message: 'HTTP 503 Service Unavailable, an HTML page: "Maintenance We\'ll be back Back at 14:00 & later"'},
    ],
    [
      'a page that says nothing but the status',
      '<html><body><h1>404 Not Found</h1></body></html>',
      404,
      {message: 'HTTP 404 Not Found, an HTML page'},
    ],
    [
      'an XML error document',
      '<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>',
      403,
      {message: 'HTTP 403 Forbidden, an XML document: "AccessDenied Access Denied"'},
    ],
    [
      'a short line of text is the message',
      'upstream connect error',
      503,
      {message: 'upstream connect error', statusText: 'Service Unavailable'},
    ],
    [
      'long text: the status, its reason and a short line',
      LONG,
      504,
      {message: `HTTP 504 Gateway Timeout: ${short(LONG.trim())}`},
    ],
    [
      'text of several lines: the first',
      'Internal error\n  at handler (server.js:10)\n  at next (router.js:5)',
      500,
      {message: 'HTTP 500 Internal Server Error: Internal error'},
    ],
    ['no body', undefined, 502, {message: 'HTTP 502 Bad Gateway'}],
    ['an empty text', '  \n', 500, {message: 'HTTP 500 Internal Server Error'}],
    ['an unknown status', undefined, 599, {message: 'HTTP 599'}],
  ]
  it.each(cases)('%s', (_name, body, status, reading) => {
    expect(readErrorBody(body, status)).toEqual(reading)
  })

  it('never lets a tag, an entity or more than about 100 characters of a page through', () => {
    const page = `<html><body><div>${'<span>word</span> '.repeat(200)}</div></body></html>`
    const {message} = readErrorBody(page, 500)
    expect(message).not.toMatch(/<|>|&\w+;/)
    expect(message.length).toBeLessThan(160)
  })
})

describe('markupOf and pageText', () => {
  const kinds: [string, 'html' | 'xml' | undefined][] = [
    [NGINX_502, 'html'],
    ['<!doctype html><p>x</p>', 'html'],
    ['<div>broken</div>', 'html'],
    ['<?xml version="1.0"?><Error/>', 'xml'],
    ['<Error><Code>x</Code></Error>', 'xml'],
    ['a < b and c > d', undefined],
    ['<not closed', undefined],
    ['{"a": 1}', undefined],
  ]
  it.each(kinds)('%j is %s', (text, kind) => {
    expect(markupOf(text)).toBe(kind)
  })

  it('keeps the visible text, reads entities and drops comments', () => {
    expect(pageText('<p>a&nbsp;&lt;b&gt; &#x41;&#66;<!-- hidden --></p>\n\n<p>c</p>')).toBe('a <b> AB c')
  })
})

describe('operationOf: what a request does, in the words of the commands', () => {
  const cases: [string, string, string | undefined][] = [
    ['POST', '/api/public/v1/demand/create-quotes/b1', 'creating quotes'],
    ['GET', '/api/public/v1/demand/b1/all?page=2&pageSize=100', 'listing demands'],
    ['GET', '/api/public/v1/demand/d1', 'getting the demand'],
    ['PUT', '/api/public/v1/demand/d1', 'updating the demand'],
    ['GET', '/api/public/v1/demand/access/file/d1?index=0', 'getting a file link'],
    ['POST', '/api/public/v1/price-estimation/b1', 'estimating the price'],
    ['POST', '/api/v2/ms-machine-owner/demand/create-demands', 'creating demands'],
    ['POST', '/api/v2/ms-machine-owner/demand/list', 'reading demands by id'],
    ['DELETE', '/api/v2/ms-machine-owner/demand/d1', 'cancelling the demand'],
    ['POST', '/api/v2/ms-machine-learning/machine-learing/modelPriceEstimation/b1?currency=EUR', 'estimating prices'],
    ['GET', '/api/v2/ms-post/post/user-posts/b1?currentPage=1', 'listing products'],
    ['POST', '/api/v2/ms-post/post/b1', 'creating the product'],
    ['POST', '/api/v2/ms-post/post/upload', 'uploading files'],
    ['POST', '/api/v2/ms-post/post/upload?postId=p1', 'adding models to the product'],
    ['PUT', '/api/v2/ms-post/post/upload?postId=p1', 'updating the product'],
    ['GET', '/api/v2/integrations_ms/webhooks/b1', 'listing webhooks'],
    ['POST', '/api/v2/integrations_ms/webhooks', 'creating the webhook'],
    ['POST', '/api/v2/integrations_ms/webhooks/b1/w1', 'updating the webhook'],
    ['POST', '/api/v2/integrations_ms/webhooks/b1/trigger', 'triggering an event'],
    ['GET', 'https://files.example.com/d1/part.stl', 'downloading the file'],
    ['POST', '/api/v2/ms-integrations/api/public/v1/mcp/protocol', undefined],
    ['GET', '/api/public/v1/unknown/route/here', undefined],
  ]
  it.each(cases)('%s %s → %s', (method, path, operation) => {
    expect(operationOf(method, path)).toBe(operation)
  })
})
