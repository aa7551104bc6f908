import {statSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export interface MfgPaths {
  configDir: string
  dataDir: string
  sandboxDir: string
  journalDir: string
}

/**
 * Where mfg keeps its files. MFG_HOME puts everything in one directory;
 * otherwise the OS conventions apply (XDG on Linux and other Unix systems,
 * ~/Library on macOS, %APPDATA% / %LOCALAPPDATA% on Windows).
 */
export function mfgPaths(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): MfgPaths {
  const nonEmpty = (v: string | undefined): string | undefined => (v && v.trim() !== '' ? v : undefined)
  const home = nonEmpty(env.MFG_HOME)
  if (home) {
    const root = path.resolve(home)
    return {
      configDir: root,
      dataDir: root,
      sandboxDir: path.join(root, 'sandbox'),
      journalDir: path.join(root, 'journals'),
    }
  }
  const userHome = nonEmpty(platform === 'win32' ? env.USERPROFILE : env.HOME) ?? os.homedir()
  let configDir: string
  let dataDir: string
  if (platform === 'darwin') {
    configDir = path.join(userHome, 'Library', 'Preferences', 'mfg')
    dataDir = path.join(userHome, 'Library', 'Application Support', 'mfg')
  } else if (platform === 'win32') {
    const appData = nonEmpty(env.APPDATA) ?? path.join(userHome, 'AppData', 'Roaming')
    const localAppData = nonEmpty(env.LOCALAPPDATA) ?? path.join(userHome, 'AppData', 'Local')
    configDir = path.win32.join(appData, 'mfg')
    dataDir = path.win32.join(localAppData, 'mfg')
  } else {
    configDir = path.join(nonEmpty(env.XDG_CONFIG_HOME) ?? path.join(userHome, '.config'), 'mfg')
    dataDir = path.join(nonEmpty(env.XDG_DATA_HOME) ?? path.join(userHome, '.local', 'share'), 'mfg')
  }
  const join = platform === 'win32' ? path.win32.join : path.join
  return {configDir, dataDir, sandboxDir: join(dataDir, 'sandbox'), journalDir: join(dataDir, 'journals')}
}

/**
 * Why MFG_HOME cannot be mfg's directory: it names a file, or a path under one. Undefined
 * when it is unset, a directory, or missing (made when first needed); a directory mfg may
 * not write is said where it is written, naming the file.
 */
export function mfgHomeProblem(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const home = env.MFG_HOME
  if (!home || home.trim() === '') return undefined
  let problem: string | undefined
  try {
    if (!statSync(home).isDirectory()) problem = 'a file'
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') problem = 'a path under a file'
  }
  return problem
    ? `MFG_HOME is ${home}, ${problem}; it must name a directory (mfg makes it when missing) where mfg keeps its profiles, journals and sandbox data, or be unset.`
    : undefined
}
