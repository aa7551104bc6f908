// Build stand-in for ejs inside the bundled @oclif/core, which uses it for the
// `<%= config.bin %> <%= command.id %>` of help texts and examples, and for
// update-server paths (not used). It fills `<%= a.b %>` with the value at that
// path and refuses any other template syntax.
'use strict'

function render(template, data) {
  return String(template).replace(/<%([=-]?)\s*([\s\S]*?)\s*%>/g, (_whole, kind, expr) => {
    if (kind === '' || !/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(expr)) {
      throw new Error(`template syntax beyond <%= path %> is not built into mfg: <%${kind} ${expr} %>`)
    }
    let value = data
    for (const key of expr.split('.')) value = value == null ? undefined : value[key]
    return value == null ? '' : String(value)
  })
}

module.exports = {render}
