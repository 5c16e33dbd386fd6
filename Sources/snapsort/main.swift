print("snapsort")
