//! Writing result files (coverage, command logs, reports) so that a reader never sees half of
//! one: a temporary file beside it, then a rename; the folder a file is in.

use std::path::{Path, PathBuf};

/// Writes `content` to `dir/name`, creating `dir` if missing, through a temporary file and a
/// rename. Returns the path written, or the path that failed with its error.
pub fn write_atomically(
    dir: &Path,
    name: &str,
    content: &str,
) -> Result<PathBuf, (PathBuf, std::io::Error)> {
    std::fs::create_dir_all(dir).map_err(|e| {
        // "File exists" says little when a file stands where a folder of the path should be.
        let e = match dir.ancestors().find(|a| a.is_file()) {
            Some(file) => std::io::Error::new(
                e.kind(),
                format!("{} is a file, not a folder to write into", file.display()),
            ),
            None => e,
        };
        (dir.to_path_buf(), e)
    })?;
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, content).map_err(|e| (tmp.clone(), e))?;
    std::fs::rename(&tmp, &path).map_err(|e| (path.clone(), e))?;
    Ok(path)
}

/// The folder `path` is in: `.` for a bare file name (whose `Path::parent` is empty).
pub fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_where_a_folder_should_be_is_named() {
        let dir = std::env::temp_dir().join(format!("baton-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("good.json");
        std::fs::write(&file, "{}").unwrap();
        let (path, error) = write_atomically(&file.join("sub"), "x.json", "{}").unwrap_err();
        assert_eq!(path, file.join("sub"));
        assert_eq!(
            error.to_string(),
            format!("{} is a file, not a folder to write into", file.display())
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
