// The help pages of src/help/render.ts: which argument lists ask for help, and
// what the pages say. The built CLI's use of them through oclif's help class is in
// test/startup and test/help/reference.test.ts.
import {describe, expect, it} from 'vitest'

import {helpRequest, renderHelp, suggestions, unknownCommand, type HelpData} from '../../src/help/render.js'

const data: HelpData = {
  bin: 'mfg',
  version: '1.2.3',
  description: 'A tool.',
  topics: {demand: {description: 'Demands.'}, api: {description: 'Raw requests.'}},
  commands: {
    api: {id: 'api', summary: 'Send a raw request.', args: {method: {name: 'method', required: true}}},
    'demand:list': {
      id: 'demand:list',
      summary: 'List demands.',
      description: 'List demands.\n\nEvery page with --all.',
      flags: {
        all: {name: 'all', type: 'boolean', description: 'Follow every page.'},
        type: {name: 'type', type: 'option', description: 'Which.', options: ['quotes', 'orders'], default: 'quotes'},
        archive: {name: 'archive', type: 'boolean', allowNo: true, description: 'Archive.'},
        secret: {name: 'secret', type: 'boolean', hidden: true},
        profile: {name: 'profile', type: 'option', helpGroup: 'GLOBAL', description: 'Profile to use.'},
        product: {name: 'product', type: 'option', char: 'p', required: true, description: 'Product id.'},
      },
      examples: [
        '<%= config.bin %> <%= command.id %> --all',
        {description: 'Orders only.', command: 'mfg demand list --type orders'},
      ],
    },
    'demand:get': {
      id: 'demand:get',
      summary: 'Show one demand.',
      args: {id: {name: 'id', required: true, description: 'Demand id.'}},
    },
    hidden: {id: 'hidden', summary: 'Not listed.', hidden: true},
  },
  guides: {
    environment: {summary: 'The variables read', sections: [{title: 'FILES', rows: [['MFG_HOME', 'Where files go.']]}]},
  },
}

describe('helpRequest', () => {
  it.each([
    [[], {kind: 'root'}],
    [['--help'], {kind: 'root'}],
    [['help'], {kind: 'root'}],
    [['demand'], {kind: 'topic', id: 'demand'}],
    [['demand', '--help'], {kind: 'topic', id: 'demand'}],
    [['help', 'demand'], {kind: 'topic', id: 'demand'}],
    [['demand', 'list', '--help'], {kind: 'command', id: 'demand:list'}],
    [['demand', 'list', '--all', '-h'], {kind: 'command', id: 'demand:list'}],
    [['help', 'demand', 'list'], {kind: 'command', id: 'demand:list'}],
    [['demand', 'get', '65f0', '--help'], {kind: 'command', id: 'demand:get'}],
    [['api', '--help'], {kind: 'command', id: 'api'}],
    [['help', 'environment'], {kind: 'guide', name: 'environment'}],
    [['environment', '--help'], {kind: 'guide', name: 'environment'}],
  ])('%j asks for %j', (argv, expected) => {
    expect(helpRequest(argv, data)).toEqual(expected)
  })

  it.each([
    [['demand', 'list']],
    [['demand', 'list', '--all']],
    [['api', 'GET', '/api/v1/demands']],
    [['api', 'POST', '/x', '--', '--help']],
    [['demand', 'lst', '--help']],
    [['nosuch']],
    [['demand', '--json']],
    [['environment']],
  ])('%j is not a help request the renderer answers', (argv) => {
    expect(helpRequest(argv, data)).toBeUndefined()
  })
})

describe('renderHelp', () => {
  it('a command page: usage with required args and flags, grouped flags, description, examples filled in', () => {
    const text = renderHelp({kind: 'command', id: 'demand:list'}, data, 80)
    expect(text.split('\n')[0]).toBe('List demands.')
    expect(text).toContain('$ mfg demand list --product=<value> [FLAGS]')
    expect(text).toMatch(/\n {2}-p, --product=<value>\s+Product id\. \(required\)/)
    expect(text).toMatch(/--type=<option>\s+Which\. \[default: quotes\]\n\s+<options: quotes\|orders>/)
    expect(text).toContain('--[no-]archive')
    expect(text).not.toContain('secret')
    expect(text.indexOf('FLAGS\n')).toBeLessThan(text.indexOf('GLOBAL FLAGS'))
    expect(text).toContain('DESCRIPTION\n  Every page with --all.')
    expect(text).toContain('$ mfg demand list --all')
    expect(text).toContain('Orders only.\n    $ mfg demand list --type orders')
    expect(text).not.toContain('<%')
  })

  it('required arguments are upper-case in the usage and listed', () => {
    const text = renderHelp({kind: 'command', id: 'demand:get'}, data, 80)
    expect(text).toContain('$ mfg demand get ID')
    expect(text).toMatch(/ARGUMENTS\n {2}ID {2}Demand id\./)
  })

  it('the root page lists topics and top-level commands, not hidden ones', () => {
    const text = renderHelp({kind: 'root'}, data, 80)
    expect(text).toContain('VERSION\n  mfg/1.2.3')
    expect(text).toMatch(/TOPICS\n {2}demand {2}Demands\./)
    expect(text).toMatch(/COMMANDS\n {2}api +Send a raw request\./)
    expect(text).toContain('help')
    expect(text).not.toContain('hidden')
    expect(text).toMatch(/HELP TOPICS\n {2}environment {2}The variables read/)
  })

  it('a help topic page: its summary and its sections', () => {
    expect(renderHelp({kind: 'guide', name: 'environment'}, data, 80)).toBe(
      'The variables read\n\nFILES\n  MFG_HOME  Where files go.',
    )
  })

  it('a topic page lists its commands', () => {
    const text = renderHelp({kind: 'topic', id: 'demand'}, data, 80)
    expect(text).toContain('$ mfg demand COMMAND')
    expect(text).toMatch(/demand get +Show one demand\.\n {2}demand list +List demands\./)
  })

  it('wraps to the width it is given', () => {
    const narrow = renderHelp({kind: 'command', id: 'demand:list'}, data, 40)
    for (const line of narrow.split('\n')) {
      if (!line.includes('$ mfg') && !line.includes('<options')) expect(line.length, line).toBeLessThanOrEqual(40)
    }
  })
})

describe('unknown commands', () => {
  it.each([
    [
      ['demand', 'lst'],
      ['demand', 'lst'],
      ['demand:list', 'demand:get'],
    ],
    [
      ['demand', 'lst', '65f0', '--all'],
      ['demand', 'lst'],
      ['demand:list', 'demand:get'],
    ],
    [['demnd', 'list'], ['demnd'], ['demand']],
    [['enviroment'], ['enviroment'], ['help:environment']],
    [['xyzzy'], ['xyzzy'], []],
  ])('%j: unknown %j, closest first %j', (argv, words, near) => {
    expect(unknownCommand(argv, data)).toEqual(words)
    expect(suggestions(words, data)).toEqual(near)
  })

  it.each([[['demand', 'list']], [['api', 'GET', '/x']], [['demand']], [['--json']], [[]]])(
    '%j is not unknown',
    (argv) => {
      expect(unknownCommand(argv, data)).toBeUndefined()
    },
  )

  it('hidden commands are never suggested', () => {
    expect(suggestions(['hiddn'], data)).toEqual([])
  })
})
