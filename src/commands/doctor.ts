import {Flags} from '@oclif/core'

import {BaseCommand} from '../cli/base-command.js'
import {writeOut} from '../cli/output.js'
import type {DoctorReport} from '../services/doctor/index.js'

export default class Doctor extends BaseCommand {
  static override summary = 'Check the setup: Node.js, file modes, profiles, clocks and the sandbox database.'
  static override description = `Checks, and says how to fix what is wrong:
- the Node.js version against the one mfg requires;
- that every file holding a secret (config.json, batch journals, the sandbox database) is owner-only (mode 0600) and that mfg's directories are not world-writable (not on Windows);
- for each stored profile, and for MFG_BASE_URL when set: that the service answers, that its clock agrees with this machine's (signed file links depend on it; a difference over 30 s warns, over 5 min fails), and that the API key (v1 and MCP) and the auth token (legacy v2) are accepted. A profile without an auth token gets a warning, not a failure; a plain-http base URL of another machine fails unless --insecure;
- for the embedded sandbox "local": its database's integrity and schema version. It is not started: it runs in this process with its own keys and clock, so its database is what can break.

Stored profiles are checked with their stored values; MFG_API_KEY, MFG_AUTH_TOKEN and MFG_BUSINESS_ID apply to the MFG_BASE_URL profile ("env"). --profile limits the profile checks to one profile. Network checks run concurrently, each within --timeout seconds, with no retries.

Exit status: 0 when every check is ok or only warns, 1 when any check failed, 2 for a usage error (such as an unknown --profile).`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile shop --timeout 10',
    '<%= config.bin %> <%= command.id %> --json | jq \'.checks[] | select(.status != "ok")\'',
  ]

  static override flags = {
    timeout: Flags.integer({description: 'Seconds each network check may take.', default: 5, min: 1, max: 120}),
  }

  async run(): Promise<DoctorReport> {
    const {flags} = await this.parse(Doctor)
    const [
      {doctorInput, doctorSummary, profileNames, renderDoctorReport},
      {inspectEmbeddedDatabase},
      {maskReport, runDoctor},
    ] = await Promise.all([
      import('../cli/doctor.js'),
      import('../cli/embedded.js'),
      import('../services/doctor/index.js'),
    ])
    const {input, gathered} = doctorInput({
      wanted: flags.profile,
      requiredNode: this.config.pjson.engines?.node as string | undefined,
      timeoutSeconds: flags.timeout,
      insecure: flags.insecure,
    })
    const report = await runDoctor(input, {inspectDatabase: inspectEmbeddedDatabase})
    const shown = maskReport(report, gathered.secrets)
    if (!this.jsonEnabled()) writeOut(renderDoctorReport(shown, profileNames(gathered)))
    this.note(doctorSummary(shown))
    if (!shown.ok) process.exitCode = 1
    return shown
  }
}
